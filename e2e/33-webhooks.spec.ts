import type { Page } from "@playwright/test";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { expect, openSignedIn, screenshot, test } from "./fixtures";

interface Received {
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A receiver on 127.0.0.1 (which e2e/serve.ts allows) that answers 200 and keeps what it was sent. */
async function startReceiver() {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({ url: request.url ?? "", headers: request.headers, body: Buffer.concat(chunks).toString("utf8") });
      response.writeHead(200, { "Content-Type": "text/plain" }).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return { url, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** The event a delivery carried, once its Standard Webhooks signature checks out with `secret`. */
function verified(delivery: Received, secret: string): { type: string } {
  const headers = Object.fromEntries(
    ["webhook-id", "webhook-timestamp", "webhook-signature"].map((name) => [name, String(delivery.headers[name])]),
  );
  return new Webhook(secret).verify(delivery.body, headers) as { type: string };
}

/** The page in each width and theme a person may see it in, from the top, without the toasts that cover it. */
async function screenshots(page: Page, name: string): Promise<void> {
  const dismiss = page.getByRole("button", { name: "Dismiss" });
  while ((await dismiss.count()) > 0) await dismiss.first().click();
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ]) {
    for (const theme of ["light", "dark"] as const) {
      await page.setViewportSize({ width, height });
      await page.emulateMedia({ colorScheme: theme });
      await screenshot(page, `33-${name}-${width}-${theme}`);
    }
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: "light" });
}

// The server's refusal of a private address is a 400, which the browser logs: that is the point.
test.use({ expectedConsoleErrors: [/status of 400 \(Bad Request\) \(http:\/\/[^)]+\/v2\/webhooks\)/] });

test("Webhooks: create one, copy its secret once, test and redeliver to a real receiver, rotate, disable and delete with confirmations", async ({
  page,
  context,
}) => {
  test.setTimeout(90_000);
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const receiver = await startReceiver();
  try {
    await openSignedIn(page, "/webhooks");
    await expect(page.getByRole("heading", { level: 1, name: "Webhooks" })).toBeVisible();
    await page.getByRole("link", { name: "New webhook" }).first().click();
    await expect(page.getByRole("heading", { level: 1, name: "New webhook" })).toBeVisible();

    // The form says what is missing before anything is sent, and the server's refusal of a private address shows on the URL field.
    await page.getByRole("button", { name: "Create webhook" }).click();
    await expect(page.getByText("Enter the address that receives the events.")).toBeVisible();
    await expect(page.getByText("Choose at least one event type.")).toBeVisible();
    const url = page.getByLabel("Endpoint URL");
    await url.fill("http://10.0.0.1/hooks");
    await page.getByLabel("user.* (all)").check();
    await expect(page.getByLabel("user.updated", { exact: true })).toBeDisabled();
    await page.getByRole("button", { name: "Create webhook" }).click();
    await expect(page.locator("#webhook-url-error")).toHaveText(
      /private or local network \(10\.0\.0\.1, private\)\..*WEBHOOK_ALLOWED_HOSTS/,
    );
    await expect(url).toBeFocused();
    await screenshot(page, "33-webhook-url-refused");

    // A token in the query is a secret of the URL: the pages show it masked, deliveries send it.
    await url.fill(`${receiver.url}?token=e2e-s3cret`);
    await page.getByLabel("survey.updated", { exact: true }).check();
    await page.getByLabel("Description (optional)").fill("The e2e receiver");
    await page.getByRole("button", { name: "Create webhook" }).click();

    // The secret is shown once, with a copy button.
    const field = page.getByRole("textbox", { name: "Signing secret" });
    await expect(field).toHaveValue(/^whsec_/);
    const secret = await field.inputValue();
    await expect(page.getByText("you will not see it again")).toBeVisible();
    await page.getByRole("button", { name: "Copy secret" }).click();
    await expect(page.getByRole("button", { name: "Copied", exact: true })).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await screenshot(page, "33-webhook-secret");
    await page.getByRole("button", { name: "I have copied it" }).click();
    const masked = `${receiver.url}?token=•••`;
    await expect(page.getByRole("heading", { level: 1, name: masked })).toBeVisible();
    await expect(page.locator("body")).not.toContainText(secret);
    await expect(page.locator("body")).not.toContainText("e2e-s3cret");
    await expect(page.getByLabel("Endpoint URL")).toHaveValue(masked);
    await expect(page.getByText("Its secrets (user:password@, query values) show as •••.")).toBeVisible();
    const webhookId = new URL(page.url()).pathname.split("/").pop();

    // A test delivery reaches the receiver signed with the secret, and succeeds in the log.
    const log = page.getByRole("region", { name: "Delivery log" });
    await expect(log.getByText("Nothing delivered yet")).toBeVisible();
    await page.getByRole("button", { name: "Send test delivery" }).click();
    await expect.poll(() => receiver.received.length).toBe(1);
    expect(verified(receiver.received[0], secret).type).toBe("webhook.test");
    expect(receiver.received[0].url).toBe("/hooks?token=e2e-s3cret");
    await expect(
      page.getByRole("status").filter({ hasText: "The test delivery succeeded: the receiver answered 200" }),
    ).toBeVisible();
    const succeeded = log.getByRole("row").filter({ hasText: "Succeeded" });
    await expect(succeeded).toHaveCount(1);
    await expect(succeeded).toContainText("200");

    // Redelivering sends the same event again.
    await succeeded.getByRole("button", { name: /^Redeliver/ }).click();
    await expect(page.getByRole("status").filter({ hasText: "The redelivery succeeded" })).toBeVisible();
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1].headers["webhook-id"]).toBe(receiver.received[0].headers["webhook-id"]);
    await expect(log.getByRole("row").filter({ hasText: "Succeeded" })).toHaveCount(2);

    await screenshots(page, "webhook");
    await page.goto("/webhooks");
    await expect(page.getByRole("row").filter({ hasText: masked })).toContainText("Active");
    await expect(page.locator("body")).not.toContainText("e2e-s3cret");
    await screenshots(page, "webhooks");
    await page.goto(`/webhooks/${webhookId}`);

    // Rotating asks first, then shows the new secret once; deliveries are signed with it.
    await page.getByRole("button", { name: "Rotate secret" }).click();
    await page
      .getByRole("alertdialog", { name: "Rotate the signing secret?" })
      .getByRole("button", { name: "Rotate secret" })
      .click();
    await expect(field).toHaveValue(/^whsec_/);
    const rotated = await field.inputValue();
    expect(rotated).not.toBe(secret);
    await page.getByRole("button", { name: "I have copied it" }).click();
    await page.getByRole("button", { name: "Send test delivery" }).click();
    await expect.poll(() => receiver.received.length).toBe(3);
    expect(verified(receiver.received[2], rotated).type).toBe("webhook.test");
    expect(() => verified(receiver.received[2], secret)).toThrow();

    // Disabling asks first; Cancel keeps it active.
    await page.getByRole("button", { name: "Disable", exact: true }).click();
    const disable = page.getByRole("alertdialog", { name: "Disable this webhook?" });
    await disable.getByRole("button", { name: "Cancel" }).click();
    await expect(disable).toBeHidden();
    await page.getByRole("button", { name: "Disable", exact: true }).click();
    await disable.getByRole("button", { name: "Disable webhook" }).click();
    await expect(page.getByRole("status").filter({ hasText: "The webhook is disabled" }).first()).toBeVisible();
    await expect(page.getByRole("button", { name: "Enable", exact: true })).toBeVisible();

    // Deleting asks first, then the list no longer has it.
    await page.getByRole("button", { name: "Delete", exact: true }).click();
    await page
      .getByRole("alertdialog", { name: "Delete this webhook?" })
      .getByRole("button", { name: "Delete webhook" })
      .click();
    await expect(page.getByRole("status").filter({ hasText: "The webhook was deleted." })).toBeVisible();
    await expect(page.getByRole("heading", { level: 1, name: "Webhooks" })).toBeVisible();
    await expect(page.getByText(receiver.url)).toHaveCount(0);
  } finally {
    await receiver.close();
  }
});
