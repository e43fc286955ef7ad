import { expect, openSignedIn, screenshot, test } from "./fixtures";

test.describe("errors", () => {
  test.use({ expectedConsoleErrors: [/status of 404 \(Not Found\).*\/v2\/users\/f{24}/] });

  test("an API error reads as a sentence with the request id to quote", async ({ page }) => {
    await openSignedIn(page, "/users/ffffffffffffffffffffffff");
    const alert = page.getByRole("alert").filter({ hasText: "could not be loaded" });
    await expect(alert).toContainText("The user could not be loaded");
    await expect(alert).toContainText("No such user.");
    await expect(alert).toContainText(/Request id: [\w-]{8,}/);
    await screenshot(page, "9-error");
  });
});
