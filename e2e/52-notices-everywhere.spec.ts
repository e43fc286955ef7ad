/**
 * Every other page's notices (e2e/51 walks the users pages, bulk actions and a survey's create and
 * save): reference data, webhooks and the test receiver, API keys, saved views, import and export,
 * a survey's questions, upgrade and revisions, the company's settings. Each action is performed at 1440 px in light and at
 * 390 px in dark (one page, its viewport changed), and after each the notice says what happened in
 * words, covers no interactive control on screen, and the control a person needs next takes the
 * click at once. Undoable changes offer Undo, which undoes; what cannot be undone asks in the one
 * modal first (docs/architecture.md, the admin pages).
 */
import type { Page } from "@playwright/test";
import { expect, openSignedIn, screenshot, STATE_MODES, test, unique } from "./fixtures";
import { axeClean, clickNow, expectNoticeCoversNothing, notice } from "./notice-checks";

type Mode = (typeof STATE_MODES)[number];

/** Runs `walk` once at each width and theme, on the same page (no new setup per width). */
async function inEachMode(page: Page, walk: (mode: Mode, tag: string) => Promise<void>): Promise<void> {
  for (const mode of STATE_MODES) {
    await page.setViewportSize({ width: mode.width, height: mode.height });
    await page.emulateMedia({ colorScheme: mode.theme });
    await walk(mode, `${mode.width}${unique()}`);
  }
}

async function apiHeaders(page: Page): Promise<Record<string, string>> {
  const response = await page.request.post("/api/auth/token");
  expect(response.status()).toBe(200);
  return { Authorization: `Bearer ${(await response.json()).accessToken}`, Admin: "true" };
}

/** The one modal that asks before what cannot be undone, answered with `confirm`. */
async function confirmInModal(page: Page, title: string | RegExp, confirm: string): Promise<void> {
  const dialog = page.getByRole("alertdialog", { name: title });
  await expect(dialog).toBeVisible();
  await expect(page.getByRole("alertdialog")).toHaveCount(1);
  await dialog.getByRole("button", { name: confirm, exact: true }).click();
  await expect(dialog).toBeHidden();
}

const REFERENCE = [
  { href: "/access-roles", one: "access role" },
  { href: "/job-titles", one: "job title" },
  { href: "/properties", one: "property" },
  { href: "/bots", one: "bot" },
] as const;

test("52. reference data: create, save and an unchanged save, on each kind", async ({ page }) => {
  test.setTimeout(120_000);
  await openSignedIn(page, "/access-roles");
  await inEachMode(page, async (mode, tag) => {
    for (const kind of REFERENCE) {
      await page.goto(kind.href);
      await clickNow(page.getByRole("link", { name: `New ${kind.one}` }).first());
      const name = `Notice ${kind.one} ${tag}`;
      await page.getByRole("textbox", { name: "Name" }).fill(name);
      await page.getByRole("button", { name: `Create ${kind.one}` }).click();
      await expectNoticeCoversNothing(page, `The ${kind.one} was created.`);
      // The phone folds the filters away: the record is opened from its search's link.
      await page.goto(`${kind.href}?search=${encodeURIComponent(name)}`);
      await clickNow(page.getByRole("link", { name, exact: true }).first());
      await page.getByRole("textbox", { name: "Name" }).fill(`${name} renamed`);
      await page.getByRole("button", { name: "Save changes" }).click();
      await expectNoticeCoversNothing(page, `Your changes to the ${kind.one} were saved.`);
      if (kind.href === "/access-roles") {
        await axeClean(page);
        await screenshot(page, `52-reference-saved-${mode.width}-${mode.theme}`);
        await page.goto(`${kind.href}?search=${encodeURIComponent(`${name} renamed`)}`);
        await clickNow(page.getByRole("link", { name: `${name} renamed`, exact: true }).first());
        await page.getByRole("button", { name: "Save changes" }).click();
        await expectNoticeCoversNothing(page, `Nothing to save: the ${kind.one} was not changed.`);
      }
      await clickNow(page.getByRole("link", { name: `New ${kind.one}` }).first());
    }
  });
});

test("52. webhooks: create, test, save, rotate, disable, enable, redeliver and delete, to the built-in receiver", async ({
  page,
  context,
}) => {
  test.setTimeout(150_000);
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await openSignedIn(page, "/webhooks/receiver");
  await inEachMode(page, async (mode, tag) => {
    await page.goto("/webhooks/receiver");
    await clickNow(page.getByRole("button", { name: "Copy address" }));
    await expectNoticeCoversNothing(page, "The receiver's address is on the clipboard.");
    await clickNow(page.getByRole("link", { name: "New webhook to this address" }));
    await page.getByLabel("user.* (all)").check();
    await page.getByLabel("Description (optional)").fill(`Notice ${tag}`);
    await page.getByRole("button", { name: "Create webhook" }).click();
    await expectNoticeCoversNothing(page, "The webhook was created. Copy its signing secret now.");
    await clickNow(page.getByRole("button", { name: "Copy secret" }));
    await clickNow(page.getByRole("button", { name: "I have copied it" }));

    await clickNow(page.getByRole("button", { name: "Send test delivery" }));
    // "Test delivery queued" shows until the outcome replaces it, which may be at once: the outcome is checked.
    await expect(notice(page, /^The test delivery succeeded: the receiver answered 204 in \d+ ms\./)).toBeVisible({
      timeout: 30_000,
    });
    await expectNoticeCoversNothing(page, /^The test delivery succeeded/);
    await axeClean(page);
    await screenshot(page, `52-webhook-tested-${mode.width}-${mode.theme}`);
    await clickNow(page.getByRole("button", { name: /^Redeliver/ }).first());
    await expect(notice(page, /^The redelivery succeeded/)).toBeVisible({ timeout: 30_000 });
    await expectNoticeCoversNothing(page, /^The redelivery succeeded/);

    await page.getByLabel("Description (optional)").fill(`Notice ${tag} edited`);
    await clickNow(page.getByRole("button", { name: "Save changes" }));
    await expectNoticeCoversNothing(page, "Your changes to the webhook were saved.");

    await clickNow(page.getByRole("button", { name: "Rotate secret" }));
    await confirmInModal(page, "Rotate the signing secret?", "Rotate secret");
    await expectNoticeCoversNothing(page, /^The signing secret was rotated: copy the new one now\./);
    await clickNow(page.getByRole("button", { name: "I have copied it" }));

    await clickNow(page.getByRole("button", { name: "Disable", exact: true }));
    await confirmInModal(page, "Disable this webhook?", "Disable webhook");
    await expectNoticeCoversNothing(page, /^The webhook is disabled: no events are sent to it/);
    await clickNow(page.getByRole("button", { name: "Enable", exact: true }));
    await expectNoticeCoversNothing(page, "The webhook is enabled: events from now on are sent to it.");

    await clickNow(page.getByRole("button", { name: "Delete", exact: true }));
    await confirmInModal(page, "Delete this webhook?", "Delete webhook");
    await expectNoticeCoversNothing(page, "The webhook was deleted.");
    await expect(page.getByRole("heading", { level: 1, name: "Webhooks" })).toBeVisible();
    await clickNow(page.getByRole("link", { name: "Test receiver" }));

    await clickNow(page.getByRole("button", { name: "Empty the receiver" }));
    await confirmInModal(page, "Empty the test receiver?", "Empty the receiver");
    await expectNoticeCoversNothing(page, "The test receiver is empty.");
    await expect(page.getByText("Nothing received yet")).toBeVisible();
  });
});

test("52. API keys: create, the shown key, and revoke", async ({ page, context }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await openSignedIn(page, "/api-keys");
  await inEachMode(page, async (mode, tag) => {
    const name = `Notice key ${tag}`;
    await page.getByLabel("Name").fill(name);
    await page.getByLabel(/^users:read/).check();
    await clickNow(page.getByRole("button", { name: "Create key" }));
    await expectNoticeCoversNothing(page, `API key “${name}” created. Copy it now.`);
    await axeClean(page);
    await screenshot(page, `52-api-key-created-${mode.width}-${mode.theme}`);
    await clickNow(page.getByRole("button", { name: "Copy key" }));
    await expect(page.getByRole("button", { name: "Copied", exact: true })).toBeVisible();
    await clickNow(page.getByRole("button", { name: "I have copied it" }));

    await clickNow(page.getByRole("button", { name: `Revoke the key ${name}` }));
    await confirmInModal(page, `Revoke the key “${name}”?`, "Revoke key");
    await expectNoticeCoversNothing(page, `API key “${name}” revoked. Requests with it are refused from now on.`);
    await expect(page.getByRole("button", { name: `Revoke the key ${name}` })).toHaveCount(0);
    await clickNow(page.getByLabel("Name"));
  });
});

test("52. saved views: save, share, copy the link, change and delete", async ({ page, context }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await openSignedIn(page, "/users?isActive=all&search=example");
  await inEachMode(page, async (mode, tag) => {
    const name = `Notice view ${tag}`;
    const views = page.getByRole("button", { name: /^Views/ });
    await clickNow(page.getByRole("button", { name: "Save view" }));
    const dialog = page.getByRole("dialog", { name: "Save the current view" });
    await dialog.getByLabel("Name").fill(name);
    await dialog.getByLabel("Share with everyone in the company").check();
    await dialog.getByRole("button", { name: "Save view" }).click();
    await expectNoticeCoversNothing(page, `View “${name}” saved.`);
    await axeClean(page);
    await screenshot(page, `52-view-saved-${mode.width}-${mode.theme}`);

    await clickNow(views);
    await clickNow(page.getByRole("button", { name: `Copy link to ${name}` }));
    await expectNoticeCoversNothing(page, `Link to “${name}” copied.`);
    expect(await page.evaluate(() => navigator.clipboard.readText())).toMatch(/\/users\?.*\bview=[0-9a-f]{24}/);

    if (!(await page.getByRole("button", { name: `Edit ${name}` }).isVisible())) await clickNow(views);
    await clickNow(page.getByRole("button", { name: `Edit ${name}` }));
    const edit = page.getByRole("dialog");
    await edit.getByLabel("Name").fill(`${name} changed`);
    await edit.getByRole("button", { name: /^Save/ }).click();
    await expectNoticeCoversNothing(page, `View “${name} changed” changed.`);

    if (!(await page.getByRole("button", { name: `Delete ${name} changed` }).isVisible())) await clickNow(views);
    await clickNow(page.getByRole("button", { name: `Delete ${name} changed` }));
    await confirmInModal(page, `Delete the view “${name} changed”?`, "Delete view");
    await expectNoticeCoversNothing(page, `View “${name} changed” deleted.`);
    await clickNow(page.getByRole("button", { name: "Save view" }));
    await page.getByRole("dialog", { name: "Save the current view" }).getByRole("button", { name: "Cancel" }).click();
  });
});

test("52. import and export: the check, the import, and the list's export", async ({ page }) => {
  test.setTimeout(120_000);
  await openSignedIn(page, "/users/import");
  await inEachMode(page, async (mode, tag) => {
    const csv = [
      "email,firstName,lastName,secondLastName,isActive,accessRoles,jobTitle",
      `notice.${tag}@example.com,Nia${tag},Notice,,true,Member,`,
    ].join("\n");
    await page.goto("/users/import");
    await page
      .getByLabel("Choose a file")
      .setInputFiles({ name: "notice.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
    await clickNow(page.getByRole("button", { name: "Check the file" }));
    const check = page.getByRole("region", { name: "2. Check" });
    await expect(check.getByLabel("What the import would do")).toBeVisible({ timeout: 15_000 });
    await expectNoticeCoversNothing(page, "Checked: every row can be imported.");
    await clickNow(check.getByRole("button", { name: "Import" }));
    const done = page.getByRole("region", { name: "3. Import" });
    await expect(done.getByRole("progressbar")).toHaveAttribute("aria-valuenow", "100", { timeout: 15_000 });
    await expectNoticeCoversNothing(page, "Imported: 1 created, 0 updated.");
    await axeClean(page);
    await screenshot(page, `52-imported-${mode.width}-${mode.theme}`);
    await clickNow(done.getByRole("link", { name: "Go to the users" }));

    await expect(page.getByRole("heading", { level: 1, name: "Users" })).toBeVisible();
    await page.goto(`/users?search=Nia${tag}`);
    await expect(page.getByTestId("users-total")).toHaveText("1 user");
    await clickNow(page.getByRole("button", { name: "Export" }));
    const downloading = page.waitForEvent("download");
    await clickNow(page.getByRole("button", { name: /^CSV/ }));
    const name = (await downloading).suggestedFilename();
    await expectNoticeCoversNothing(page, `Exported 1 user to ${name}.`);
    await clickNow(page.getByRole("link", { name: new RegExp(`Nia${tag} Notice`) }).first());
    await expect(page.getByRole("heading", { level: 1 })).toContainText(`Nia${tag}`);
  });
});

test("52. a survey's questions, upgrade and revisions: save, unchanged save, upgrade, restore and its Undo", async ({
  page,
}) => {
  test.setTimeout(120_000);
  await openSignedIn(page, "/surveys");
  const headers = await apiHeaders(page);
  await inEachMode(page, async (mode, tag) => {
    const created = await page.request.post("/v2/surveys", {
      headers,
      data: {
        code: `notice_${tag}`,
        name: `Notice survey ${tag}`,
        version: 1,
      },
    });
    expect(created.status(), await created.text()).toBe(201);
    const id = (await created.json())._id as string;
    const chats = async () =>
      ((await (await page.request.get(`/v2/surveys/${id}?populate=true`, { headers })).json()).chat ?? [])
        .length as number;

    await page.goto(`/surveys/${id}/questions`);
    await clickNow(page.getByRole("button", { name: "Add a chat" }));
    await page.getByLabel("Chat 1 name").fill("Week");
    await clickNow(page.getByRole("button", { name: "Add a question to chat 1" }));
    await page.getByLabel("Question 1 of chat 1", { exact: true }).fill("How was your week?");
    await clickNow(page.getByRole("button", { name: "Save questions" }));
    await expectNoticeCoversNothing(page, "Your changes to the survey were saved. It is now at revision 1.");
    expect(await chats()).toBe(1);
    await clickNow(page.getByRole("navigation", { name: "Survey" }).getByRole("link", { name: "Questions" }));
    await clickNow(page.getByRole("button", { name: "Save questions" }));
    await expectNoticeCoversNothing(page, "Nothing to save: the questions were not changed.");

    await page.goto(`/surveys/${id}/upgrade`);
    await clickNow(page.getByRole("button", { name: "Upgrade to version 2" }));
    await expectNoticeCoversNothing(
      page,
      /^Your changes to the survey were saved\. It now uses the version 2 permission model\./,
    );

    // A restore is undoable: it acts at once, with no question, and its Undo puts the survey back.
    await page.goto(`/surveys/${id}/history`);
    await clickNow(page.getByRole("button", { name: "Restore revision 0" }));
    await expect(page.getByRole("alertdialog")).toHaveCount(0);
    const restored = notice(page, /^The survey was restored to revision 0\. It is now at revision \d+\./);
    await expectNoticeCoversNothing(page, /^The survey was restored to revision 0\./);
    await expect.poll(chats).toBe(0);
    await axeClean(page);
    await screenshot(page, `52-restored-${mode.width}-${mode.theme}`);
    await clickNow(restored.getByRole("button", { name: "Undo" }));
    await expectNoticeCoversNothing(page, /^The survey was restored to revision \d+\. It is now at revision \d+\./);
    await expect.poll(chats).toBe(1);
  });
});

test("52. company settings: the time zone's save and its Undo", async ({ page }) => {
  await openSignedIn(page, "/settings");
  const headers = await apiHeaders(page);
  const zoneNow = async () => (await (await page.request.get("/v2/company", { headers })).json()).timeZone as string;
  const before = await zoneNow();
  // The other specs read days in the zone it had: put back whatever this test leaves.
  try {
    await inEachMode(page, async (mode) => {
      const zone = before === "Pacific/Auckland" ? "Europe/Paris" : "Pacific/Auckland";
      await page.getByLabel("Find a time zone").fill(zone.split("/")[1]);
      await page.getByRole("listbox", { name: "Time zone" }).selectOption(zone);
      await clickNow(page.getByRole("button", { name: "Save time zone" }));
      const saved = notice(page, `The company’s time zone is now ${zone}: days are read there on every page.`);
      await expectNoticeCoversNothing(page, `The company’s time zone is now ${zone}`);
      expect(await zoneNow()).toBe(zone);
      await axeClean(page);
      await screenshot(page, `52-settings-saved-${mode.width}-${mode.theme}`);
      await clickNow(saved.getByRole("button", { name: "Undo" }));
      await expectNoticeCoversNothing(page, `The company’s time zone is back to ${before}.`);
      expect(await zoneNow()).toBe(before);
      await clickNow(page.getByLabel("Find a time zone"));
    });
  } finally {
    await page.request.patch("/v2/company", { headers, data: { timeZone: before } });
  }
});
