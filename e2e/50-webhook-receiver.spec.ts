/**
 * The built-in test receiver (docs/api.md#test-receiver): a local trial points a webhook at it with
 * no server of its own and no WEBHOOK_ALLOWED_HOSTS for it, sends a test delivery, sees it arrive
 * with its headers and a valid signature, rotates the secret and sees the next one valid too, then
 * empties it after a confirmation. At 1440 px in light and 390 px in dark, axe-clean.
 */
import { expectNoSeriousViolation as axeClean } from "./axe";
import { expect, openSignedIn, screenshot, STATE_MODES, test } from "./fixtures";

for (const mode of STATE_MODES) {
  test(`50. the test receiver shows a test delivery and a rotated one, signed, with no outside server (${mode.width} px, ${mode.theme})`, async ({
    page,
  }) => {
    test.setTimeout(90_000);
    await page.setViewportSize({ width: mode.width, height: mode.height });
    await page.emulateMedia({ colorScheme: mode.theme });
    await openSignedIn(page, "/webhooks");
    // Each run starts from an empty receiver, whatever an earlier run left.
    const token = (await (await page.request.post("/api/auth/token")).json()).accessToken as string;
    expect(
      (
        await page.request.delete("/v2/webhooks/receiver", {
          headers: { Authorization: `Bearer ${token}`, Admin: "true" },
        })
      ).status(),
    ).toBe(204);

    await page.getByRole("link", { name: "Test receiver" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Test receiver" })).toBeVisible();
    await expect(page.getByText("Nothing received yet")).toBeVisible();
    const address = (await page.getByTestId("receiver-url").textContent())!;
    expect(address).toMatch(/\/api\/webhook-receiver\/[A-Za-z0-9_-]{32}$/);
    await axeClean(page, "empty");
    await screenshot(page, `50-receiver-empty-${mode.width}-${mode.theme}`);

    await page.getByRole("link", { name: "New webhook to this address" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "New webhook" })).toBeVisible();
    await expect(page.getByLabel("Endpoint URL")).toHaveValue(address);
    await page.getByLabel("user.* (all)").check();
    await page.getByRole("button", { name: "Create webhook" }).click();
    await expect(page.getByRole("textbox", { name: "Signing secret" })).toHaveValue(/^whsec_/);
    await page.getByRole("button", { name: "I have copied it" }).click();
    await expect(page.getByRole("heading", { level: 1, name: address })).toBeVisible();

    await page.getByRole("button", { name: "Send test delivery" }).click();
    await expect(
      page.getByRole("status").filter({ hasText: "The test delivery succeeded: the receiver answered 204" }),
    ).toBeVisible({ timeout: 15_000 });
    const webhookPage = page.url();

    await page.goto("/webhooks/receiver");
    const receipts = page.getByTestId("receipt");
    await expect(receipts).toHaveCount(1);
    await expect(receipts.first()).toContainText("webhook.test");
    await expect(receipts.first()).toContainText("Signature valid");
    await expect(receipts.first()).toContainText("webhook-signature");
    await expect(receipts.first()).toContainText('"type": "webhook.test"');
    await axeClean(page, "one received");
    await screenshot(page, `50-receiver-received-${mode.width}-${mode.theme}`);

    // A rotated secret signs the next delivery, and the receiver checks it against the new one.
    await page.goto(webhookPage);
    await page.getByRole("button", { name: "Rotate secret" }).click();
    await page
      .getByRole("alertdialog", { name: "Rotate the signing secret?" })
      .getByRole("button", { name: "Rotate secret" })
      .click();
    await expect(page.getByRole("textbox", { name: "Signing secret" })).toHaveValue(/^whsec_/);
    await page.getByRole("button", { name: "I have copied it" }).click();
    await page.getByRole("button", { name: "Send test delivery" }).click();
    await expect(page.getByRole("status").filter({ hasText: "The test delivery succeeded" })).toBeVisible({
      timeout: 15_000,
    });
    await page.goto("/webhooks/receiver");
    await expect(receipts).toHaveCount(2);
    await expect(receipts.first()).toContainText("Signature valid");

    // Emptying cannot be undone: it asks once, in a dialog.
    await page.getByRole("button", { name: "Empty the receiver" }).click();
    await page
      .getByRole("alertdialog", { name: "Empty the test receiver?" })
      .getByRole("button", { name: "Empty the receiver" })
      .click();
    await expect(page.getByText("Nothing received yet")).toBeVisible();
    await expect(page.getByTestId("receiver-url")).toHaveText(address);
  });
}
