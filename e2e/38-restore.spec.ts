/**
 * A restore on a survey's Revisions page makes the survey what the chosen revision was: its
 * fields, its permissions and its content (a revision without chats leaves none; one with fewer
 * questions removes the later ones), and the comparison of the two then shows no difference.
 * At 1440 px in light and at 390 px in dark.
 */
import type { Page } from "@playwright/test";
import { expect, openSignedIn, screenshot, STATE_MODES, test, unique } from "./fixtures";

async function apiHeaders(page: Page): Promise<Record<string, string>> {
  const response = await page.request.post("/api/auth/token");
  expect(response.status()).toBe(200);
  return { Authorization: `Bearer ${(await response.json()).accessToken}`, Admin: "true" };
}

for (const mode of STATE_MODES) {
  test(`38. a restore restores fields, permissions and content, and the comparison then finds nothing (${mode.width} px, ${mode.theme})`, async ({
    page,
  }) => {
    test.setTimeout(90_000);
    await page.setViewportSize({ width: mode.width, height: mode.height });
    await page.emulateMedia({ colorScheme: mode.theme });
    await openSignedIn(page, "/surveys");
    const headers = await apiHeaders(page);
    const roles = (await (await page.request.get("/v2/access-roles", { headers })).json()).data.accessRoles as {
      _id: string;
      name: string;
      isAdmin: boolean;
    }[];
    const admin = roles.find((role) => role.isAdmin)!;
    const member = roles.find((role) => !role.isAdmin)!;

    // #0: created without chats; #1: one chat of two questions; #2: four questions in two chats; #3: other permissions and name.
    const created = await page.request.post("/v2/surveys", {
      headers,
      data: {
        code: `restore_${unique()}`,
        name: "Pulse before",
        version: 2,
        permissionsV2: [{ accessRole: admin._id, canAnswer: true, canViewAnswers: true }],
      },
    });
    expect(created.status()).toBe(201);
    const id = (await created.json())._id as string;
    const first = await page.request.put(`/v2/surveys/${id}/content`, {
      headers,
      data: {
        chat: [
          {
            name: "Intro",
            questions: [
              { text: "Your team?", type: "text" },
              { text: "Happy?", type: "yes_no" },
            ],
          },
        ],
      },
    });
    expect(first.status()).toBe(200);
    const intro = (await first.json()).chat[0];
    const second = await page.request.put(`/v2/surveys/${id}/content`, {
      headers,
      data: {
        chat: [
          {
            _id: intro._id,
            name: "Intro",
            questions: [
              ...intro.questions.map((q: { _id: string; text: string; type: string }) => ({
                _id: q._id,
                text: q.text,
                type: q.type,
              })),
              { text: "Rate the week", type: "rating" },
            ],
          },
          { name: "Extra", questions: [{ text: "Anything else?", type: "text" }] },
        ],
      },
    });
    expect(second.status()).toBe(200);
    const patched = await page.request.patch(`/v2/surveys/${id}`, {
      headers,
      data: {
        name: "Pulse after",
        permissionsV2: [{ accessRole: member._id, canAnswer: true, canViewAnswers: false }],
      },
    });
    expect(patched.status()).toBe(200);

    await page.goto(`/surveys/${id}/history`);
    await expect(page.getByRole("heading", { level: 1, name: "Revisions of Pulse after" })).toBeVisible();

    /** Restores revision `n` by its button (it acts at once), and waits for the notice. */
    const restore = async (n: number, now: number) => {
      await page.getByRole("button", { name: `Restore revision ${n}` }).click();
      await expect(
        page
          .getByRole("status")
          .filter({ hasText: `The survey was restored to revision ${n}. It is now at revision ${now}.` }),
      ).toBeVisible();
    };
    const compare = async (left: number, right: number) => {
      await page.getByRole("radio", { name: `Revision ${left} on the left` }).check();
      await page.getByRole("radio", { name: `Revision ${right} on the right` }).check();
      await expect(page.getByRole("heading", { name: `Revision #${left} ↔ #${right}` })).toBeVisible();
    };

    // Fewer questions, other permissions and name: #1 comes back whole (its fields as #4, its content as #5).
    await restore(1, 5);
    await compare(1, 5);
    await expect(page.getByText("These two revisions hold the same survey")).toBeVisible();
    await expect(page.getByTestId("content-change")).toHaveCount(0);
    await screenshot(page, `38-restore-same-${mode.width}-${mode.theme}`);
    await page.getByRole("link", { name: "Pulse before" }).first().click();
    await expect(page.getByRole("heading", { level: 1, name: "Pulse before" })).toBeVisible();
    await expect(page.getByText("Your team?")).toBeVisible();
    await expect(page.getByText("Rate the week")).toHaveCount(0);
    await expect(page.getByText("Anything else?")).toHaveCount(0);
    await expect(page.getByText(/Admin \(answer, view answers\)/)).toBeVisible();
    await expect(page.getByText(/Member \(answer/)).toHaveCount(0);

    // A revision without chats: the chat and its questions go (their answers would be kept).
    await page.goto(`/surveys/${id}/history`);
    await restore(0, 6);
    await compare(0, 6);
    await expect(page.getByText("These two revisions hold the same survey")).toBeVisible();
    await page.goto(`/surveys/${id}`);
    await expect(page.getByText("This survey has no chats yet")).toBeVisible();
  });
}
