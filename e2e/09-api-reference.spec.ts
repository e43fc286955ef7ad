import path from "node:path";
import { expect, SCREENSHOTS, test } from "./fixtures";

test("API reference: /docs renders this server's OpenAPI document and loads nothing from elsewhere", async ({ page, baseURL }) => {
  const origin = new URL(baseURL!).origin;
  const outside: string[] = [];
  page.on("request", (request) => {
    const url = request.url();
    if (!url.startsWith(`${origin}/`) && !/^(data|blob):/.test(url)) outside.push(url);
  });

  const document = page.waitForResponse((response) => new URL(response.url()).pathname === "/v2/openapi.json");
  await page.goto("/docs");
  expect((await document).status()).toBe(200);
  await expect(page.getByRole("heading", { name: "Users & Surveys API" })).toBeVisible();

  await page.getByRole("button", { name: /^List users/ }).first().click();
  await expect(page.getByRole("heading", { name: "List users" })).toBeVisible();
  await expect(page.getByText("Records per page.").first()).toBeVisible();
  await page.waitForLoadState("networkidle");
  await page.screenshot({ path: path.join(SCREENSHOTS, "9-api-reference.png") });

  expect(outside, "no font, script, style or call leaves the server").toEqual([]);
});
