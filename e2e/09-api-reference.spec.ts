import path from "node:path";
import { expect, SCREENSHOTS, test } from "./fixtures";

test("API reference: /docs shows every operation of this server's OpenAPI document and loads nothing from elsewhere", async ({
  page,
  baseURL,
  request,
}) => {
  const origin = new URL(baseURL!).origin;
  const outside: string[] = [];
  page.on("request", (request) => {
    const url = request.url();
    if (!url.startsWith(`${origin}/`) && !/^(data|blob):/.test(url)) outside.push(url);
  });

  await page.goto("/docs");
  await expect(page.getByRole("heading", { level: 1, name: "Users & Surveys API" })).toBeVisible();

  // Every operation of the document has its section, named by its summary.
  const document = await (await request.get("/v2/openapi.json")).json();
  const operations = Object.values(
    document.paths as Record<string, Record<string, { operationId: string; summary: string }>>,
  ).flatMap((item) => Object.values(item));
  expect(operations.length).toBeGreaterThan(20);
  for (const operation of operations) {
    await expect(page.locator(`article#${operation.operationId}`).getByRole("heading", { level: 3 })).toHaveText(
      operation.summary,
    );
  }

  // The contents lead to an operation, which names its parameters and answers.
  await page
    .getByRole("navigation", { name: "Contents" })
    .getByRole("link", { name: /List users/ })
    .click();
  await expect(page).toHaveURL(/#getUsers$/);
  const listUsers = page.getByRole("article", { name: "List users" });
  await expect(listUsers.getByText("Records per page.")).toBeVisible();
  await expect(listUsers.getByRole("link", { name: "UserList" })).toBeVisible();
  await page.screenshot({ path: path.join(SCREENSHOTS, "9-api-reference.png") });

  // Every link inside the page lands on something.
  const anchors = await page
    .locator('a[href^="#"]')
    .evaluateAll((links) => [...new Set(links.map((link) => link.getAttribute("href")!.slice(1)))]);
  const missing = await page.evaluate((ids) => ids.filter((id) => !document.getElementById(id)), anchors);
  expect(missing, "in-page links without a target").toEqual([]);

  await page.waitForLoadState("networkidle");
  expect(outside, "no font, script, style or call leaves the server").toEqual([]);
});

test("API reference: /docs reads the same without JavaScript", async ({ browser, baseURL }) => {
  const context = await browser.newContext({ baseURL, javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto("/docs");
  await expect(page.getByRole("heading", { level: 1, name: "Users & Surveys API" })).toBeVisible();
  await expect(page.getByRole("article", { name: "Create a user" })).toContainText("POST");
  await expect(page.locator("section#schema-User")).toContainText("accessRoles");
  await context.close();
});
