/**
 * A survey end to end in the admin pages: its questions written and put in order by keyboard
 * alone, a response recorded through the Preview, the Results tab's figures following it, a
 * restore on the history page bringing removed content back, and the Preview saying why it
 * cannot record a response.
 */
import type { APIRequestContext, Page } from "@playwright/test";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { expect, openSignedIn, SCREENSHOTS, test, unique } from "./fixtures";

// The documentation's pictures are refreshed only when asked (`DOCS_SCREENSHOTS=1`, as e2e/25): a run leaves the tree as it found it.
const DOCS_SCREENSHOTS =
  process.env.DOCS_SCREENSHOTS === "1" ? path.join(__dirname, "..", "docs", "screenshots") : SCREENSHOTS;

/** Bearer headers from the browser's session, for setting up records through the API. */
async function apiHeaders(request: APIRequestContext): Promise<Record<string, string>> {
  const response = await request.post("/api/auth/token");
  expect(response.status()).toBe(200);
  return { Authorization: `Bearer ${(await response.json()).accessToken}`, Admin: "true" };
}

/** A new survey, empty, whose Admin role may answer (or not) — made through the API. */
async function newSurvey(
  page: Page,
  options: { canAnswer: boolean; isActive?: boolean },
): Promise<{ id: string; headers: Record<string, string> }> {
  const headers = await apiHeaders(page.request);
  const roles = (await (await page.request.get("/v2/access-roles", { headers })).json()).data.accessRoles as {
    _id: string;
    isAdmin: boolean;
  }[];
  const admin = roles.find((role) => role.isAdmin)!._id;
  const created = await page.request.post("/v2/surveys", {
    headers,
    data: {
      code: `content_${unique()}`,
      name: "Weekly pulse",
      version: 2,
      isActive: options.isActive ?? true,
      permissionsV2: options.canAnswer ? [{ accessRole: admin, canAnswer: true, canViewAnswers: true }] : [],
    },
  });
  expect(created.status()).toBe(201);
  return { id: (await created.json())._id as string, headers };
}

/** Presses a control by keyboard: focus on it, then Enter (no pointer involved). */
async function press(page: Page, name: string | RegExp, key = "Enter") {
  await page.getByRole("button", { name, exact: typeof name === "string" }).focus();
  await page.keyboard.press(key);
}

test("31. an empty survey's questions written by keyboard alone, answered in the Preview, and its Results following each response", async ({
  page,
}) => {
  test.setTimeout(120_000);
  await openSignedIn(page, "/surveys");
  const { id } = await newSurvey(page, { canAnswer: true });

  await page.goto(`/surveys/${id}/results`);
  await expect(page.getByText("No question yet")).toBeVisible();

  await page.goto(`/surveys/${id}`);
  await page.getByRole("navigation", { name: "Survey" }).getByRole("link", { name: "Questions" }).focus();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { level: 1, name: "Questions of Weekly pulse" })).toBeVisible();

  // A chat, its name typed where the focus lands.
  await press(page, "Add a chat");
  await expect(page.getByLabel("Chat 1 name")).toBeFocused();
  await page.keyboard.type("This week");
  // Three questions, each typed where the focus lands after "Add a question".
  const questions: [string, string, string?][] = [
    ["How was your week?", "text"],
    ["Which team are you on?", "single_choice", "Red\nBlue"],
    ["How happy are you?", "rating"],
  ];
  for (const [n, [text, type, options]] of questions.entries()) {
    await press(page, "Add a question to chat 1");
    await expect(page.getByLabel(`Question ${n + 1} of chat 1`, { exact: true })).toBeFocused();
    await page.keyboard.type(text);
    await page.keyboard.press("Tab");
    await expect(page.getByLabel(`Type of question ${n + 1} of chat 1`)).toBeFocused();
    await page.getByLabel(`Type of question ${n + 1} of chat 1`).selectOption(type);
    if (options) {
      await page.keyboard.press("Tab");
      await expect(page.getByLabel(`Options, one a line of question ${n + 1} of chat 1`)).toBeFocused();
      await page.keyboard.type(options);
    }
  }

  // The rating moves up one place: the move is read out and the focus stays on the button.
  await press(page, "Move question 3 of chat 1 up");
  await expect(page.getByTestId("move-announcement")).toHaveText(
    "“How happy are you?” is now question 2 of 3 in chat 1, This week.",
  );
  await expect(page.getByRole("button", { name: "Move question 2 of chat 1 up" })).toBeFocused();
  await expect(page.getByLabel("Question 2 of chat 1", { exact: true })).toHaveValue("How happy are you?");
  await expect(page.getByTestId("question-item")).toHaveCount(3);

  // An empty option list is refused in plain words before anything is sent.
  await page.getByLabel("Options, one a line of question 3 of chat 1").fill("Red");
  await press(page, "Save questions");
  await expect(page.getByText("Write 2 to 50 different options, one a line.")).toBeVisible();
  await expect(page.getByLabel("Options, one a line of question 3 of chat 1")).toBeFocused();
  await page.keyboard.press("End");
  await page.keyboard.type("\nBlue");

  await press(page, "Save questions");
  await expect(
    page.getByRole("status").filter({ hasText: "Your changes to the survey were saved. It is now at revision 1." }),
  ).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`/surveys/${id}$`));
  await expect(page.locator("tbody tr")).toHaveText([
    /How was your week\?/,
    /How happy are you\?/,
    /Which team are you on\?.*Red · Blue/,
  ]);

  // Results before any answer, then a response through the Preview.
  await page.getByRole("navigation", { name: "Survey" }).getByRole("link", { name: "Results" }).click();
  await expect(page.getByTestId("total-responses")).toHaveText("0");
  await expect(page.getByTestId("question-result")).toHaveCount(3);
  await expect(page.getByText("No answers in this period.")).toHaveCount(3);

  for (const [team, rating] of [
    ["Red", "4"],
    ["Blue", "5"],
  ]) {
    await page.getByRole("navigation", { name: "Survey" }).getByRole("link", { name: "Preview" }).click();
    await expect(page.getByRole("heading", { name: "This week" })).toBeVisible();
    await page.getByLabel("1. How was your week?").fill(`Busy, team ${team}`);
    await page.getByRole("group", { name: "2. How happy are you?" }).getByLabel(rating).check();
    await page.getByRole("group", { name: "3. Which team are you on?" }).getByLabel(team).check();
    await page.getByRole("button", { name: "Send response" }).click();
    await expect(page.getByTestId("response-recorded")).toHaveText("Your response was recorded");
    await page.getByRole("link", { name: "See the results" }).click();
    await expect(page.getByTestId("total-responses")).toHaveText(team === "Red" ? "1" : "2");
  }

  const team = page.getByTestId("question-result").filter({ hasText: "Which team are you on?" });
  await expect(team.getByTestId("question-answered")).toHaveText("2");
  await team.getByText("Show as a table").click();
  await expect(team.getByTestId("result-table").getByRole("row", { name: /Red/ })).toContainText("1");
  await expect(team.getByTestId("result-table").getByRole("row", { name: /Blue/ })).toContainText("1");
  await expect(team.getByRole("img", { name: /Bar chart of Which team are you on\?: Red 1, Blue 1/ })).toBeVisible();
  const happy = page.getByTestId("question-result").filter({ hasText: "How happy are you?" });
  await expect(happy.getByText("Mean")).toBeVisible();
  await expect(happy.locator("dd").nth(2)).toHaveText("4.5");
  const text = page.getByTestId("question-result").filter({ hasText: "How was your week?" });
  await expect(text.getByText("Busy, team Blue")).toBeVisible();

  // A range before any answer shows none; the answers list finds a text answer by its words.
  await page.goto(`/surveys/${id}/results?from=2020-01-01&to=2020-01-31`);
  await expect(page.getByTestId("total-responses")).toHaveText("0");
  await page.goto(`/surveys/${id}/answers`);
  await page.getByLabel("Search").fill("team red");
  await expect(page.locator("tbody tr")).toHaveCount(1);
  await expect(page.locator("tbody tr")).toContainText("Busy, team Red");

  // The results tab, light and dark, for the documentation.
  mkdirSync(DOCS_SCREENSHOTS, { recursive: true });
  await page.setViewportSize({ width: 1440, height: 900 });
  for (const theme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: theme });
    await page.goto(`/surveys/${id}/results`);
    await expect(page.getByTestId("total-responses")).toHaveText("2");
    await page.waitForLoadState("networkidle");
    await page.screenshot({ path: path.join(DOCS_SCREENSHOTS, `survey-results-${theme}.png`), fullPage: true });
  }
});

test("31. removing an answered question asks first; a restore on the history page brings it back with its answers", async ({
  page,
}) => {
  test.setTimeout(90_000);
  await openSignedIn(page, "/surveys");
  const { id, headers } = await newSurvey(page, { canAnswer: true });
  const content = await page.request.put(`/v2/surveys/${id}/content`, {
    headers,
    data: {
      chat: [
        {
          name: "Only chat",
          questions: [
            { text: "Favourite colour?", type: "text" },
            { text: "Rate us", type: "rating" },
          ],
        },
      ],
    },
  });
  expect(content.status()).toBe(200);
  const favourite = (await content.json()).chat[0].questions[0]._id as string;
  expect(
    (
      await page.request.post(`/v2/surveys/${id}/answers`, {
        headers,
        data: { answers: [{ question: favourite, value: "Green" }] },
      })
    ).status(),
  ).toBe(201);

  await page.goto(`/surveys/${id}/questions`);
  const answered = page.getByTestId("question-item").filter({ has: page.getByText("1 answer", { exact: true }) });
  await expect(answered).toHaveCount(1);
  await expect(page.getByLabel("Type of question 1 of chat 1")).toBeDisabled();
  await press(page, "Remove question 1 of chat 1");
  const dialog = page.getByRole("alertdialog", { name: "Remove an answered question?" });
  await expect(dialog).toContainText("“Favourite colour?” has 1 answer. The answers are kept");
  await dialog.getByRole("button", { name: "Remove question" }).click();
  await expect(page.getByTestId("question-item")).toHaveCount(1);
  await page.getByRole("button", { name: "Save questions" }).click();
  await expect(page.getByRole("status").filter({ hasText: "It is now at revision 2." })).toBeVisible();
  await expect(page.getByText("Favourite colour?")).toHaveCount(0);

  await page.getByRole("link", { name: "Revisions", exact: true }).click();
  await expect(
    page.getByRole("row").filter({ has: page.getByRole("link", { name: "#2", exact: true }) }),
  ).toContainText("Chats and questions");
  await expect(page.getByTestId("content-change")).toContainText(["Question removed“Favourite colour?” (Text)"]);
  await page.getByRole("button", { name: "Restore revision 1" }).click();
  await expect(
    page.getByRole("status").filter({ hasText: "The survey was restored to revision 1. It is now at revision 3." }),
  ).toBeVisible();

  await page.goto(`/surveys/${id}`);
  await expect(page.locator("tbody tr").first()).toContainText("Favourite colour?");
  await expect(page.locator("tbody tr").first()).toContainText("1");
});

test("31. questions put in order by mouse: a question dragged by its handle lands where it is dropped, and is saved there", async ({
  page,
}) => {
  await openSignedIn(page, "/surveys");
  const { id, headers } = await newSurvey(page, { canAnswer: true });
  const texts = ["First question", "Second question", "Third question"];
  const content = await page.request.put(`/v2/surveys/${id}/content`, {
    headers,
    data: { chat: [{ name: "Only chat", questions: texts.map((text) => ({ text, type: "text" })) }] },
  });
  expect(content.status()).toBe(200);

  await page.goto(`/surveys/${id}/questions`);
  const from = (await page.getByRole("button", { name: "Drag question 3 of chat 1" }).boundingBox())!;
  const onto = (await page.getByTestId("question-item").first().boundingBox())!;
  // A pointer drag starts after a few pixels of movement, then follows the pointer to the drop.
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await page.mouse.down();
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2 - 8, { steps: 4 });
  await page.mouse.move(from.x + from.width / 2, onto.y + 4, { steps: 20 });
  await page.mouse.up();
  await expect(page.getByLabel("Question 1 of chat 1", { exact: true })).toHaveValue("Third question");
  await expect(page.getByLabel("Question 2 of chat 1", { exact: true })).toHaveValue("First question");

  await page.getByRole("button", { name: "Save questions" }).click();
  await expect(page.getByRole("status").filter({ hasText: "It is now at revision 2." })).toBeVisible();
  await expect(page.locator("tbody tr")).toHaveText([/Third question/, /First question/, /Second question/]);
});

test.describe("31. a response refused", () => {
  test.use({ expectedConsoleErrors: [/status of 40[39] .*\/v2\/surveys\/[0-9a-f]{24}\/answers/] });

  test("the Preview says in plain words why it records no response", async ({ page }) => {
    await openSignedIn(page, "/surveys");
    for (const [options, why] of [
      [
        { canAnswer: false },
        "Your access roles may not answer this survey: none of them has “Answer” ticked in the survey’s permissions.",
      ],
      [{ canAnswer: true, isActive: false }, "This survey is inactive, so it takes no answers. Activate it to try it."],
    ] as const) {
      const { id, headers } = await newSurvey(page, options);
      expect(
        (
          await page.request.put(`/v2/surveys/${id}/content`, {
            headers,
            data: { chat: [{ name: "One", questions: [{ text: "Ready?", type: "yes_no" }] }] },
          })
        ).status(),
      ).toBe(200);
      await page.goto(`/surveys/${id}/preview`);
      await page.getByLabel("Yes").check();
      await page.getByRole("button", { name: "Send response" }).click();
      await expect(page.getByRole("alert").filter({ hasText: "The response was not recorded" })).toContainText(why);
    }
  });
});
