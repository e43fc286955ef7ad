import { expect, openSignedIn, screenshot, test } from "./fixtures";

test.describe("errors", () => {
  test.use({ expectedConsoleErrors: [/status of 404 \(Not Found\).*\/v2\/users\/f{24}/] });

  test("an unknown record is a calm not-found, not an error", async ({ page }) => {
    await openSignedIn(page, "/users/ffffffffffffffffffffffff");
    await expect(page.getByText("This user does not exist")).toBeVisible();
    await expect(
      page.getByText("No such user. It may have been deleted, or the link may be incomplete."),
    ).toBeVisible();
    await expect(page.getByRole("alert").filter({ hasText: "could not be loaded" })).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Retry" })).toHaveCount(0);
    await screenshot(page, "9-error");
  });
});
