import type { Page } from "@playwright/test";
import { expect, openSignedIn, signIn, test } from "./fixtures";
import { watchPolicy } from "./page-checks";

/**
 * The pages obey their own Content-Security-Policy: pages reached through the app's own links are
 * used a little, so that late scripts and styles come in, while the browser reports each violation
 * (every page by its address is checked by the walk of e2e/11-accessibility.spec.ts); and no other
 * site can frame them.
 */

/** Opens `path` and waits until its late content (lists, forms, the API reference) is in. */
async function visit(page: Page, path: string): Promise<void> {
  await test.step(path, async () => {
    const response = await page.goto(path);
    expect(response?.headers()["content-security-policy"], `${path}: a policy`).toContain("frame-ancestors 'none'");
    await expect(page.getByRole("heading", { level: 1 }).first()).toBeVisible();
    await page.waitForLoadState("networkidle");
  });
}

test("every kind of answer carries the security headers, and none says what serves it", async ({ request }) => {
  const page = await request.get("/sign-in");
  const html = await page.text();
  const asset = /\/_next\/static\/[^"']+\.js/.exec(html)?.[0];
  expect(asset, "the page loads a script of the build").toBeDefined();
  // Each script Next.js wrote into the page carries this answer's nonce.
  const nonce = /'nonce-([^']+)'/.exec(page.headers()["content-security-policy"])![1];
  const scripts = html.match(/<script\b[^>]*>/g) ?? [];
  expect(scripts.length).toBeGreaterThan(0);
  for (const script of scripts) expect(script).toContain(`nonce="${nonce}"`);
  const answers = {
    "a page": page,
    "an admin page": await request.get("/users"),
    "the API reference": await request.get("/docs"),
    "a page that does not exist": await request.get("/no-such-page"),
    "/v2 JSON": await request.get("/v2/openapi.json"),
    "a /v2 error": await request.get("/v2/users"),
    "a /v2 path no route serves": await request.get("/v2/no-such-resource"),
    "an /api answer": await request.get("/api/health"),
    "an /api error": await request.post("/api/auth/login", {
      data: "not json",
      headers: { "Content-Type": "application/json" },
    }),
    "a static script": await request.get(asset!),
    "the icon": await request.get("/icon.svg"),
  };
  for (const [kind, response] of Object.entries(answers)) {
    const headers = response.headers();
    expect(headers["content-security-policy"], kind).toMatch(
      /^default-src 'self'; script-src 'self' 'nonce-[^']+' 'strict-dynamic';.*frame-ancestors 'none'/,
    );
    expect(headers["x-frame-options"], kind).toBe("DENY");
    expect(headers["x-content-type-options"], kind).toBe("nosniff");
    expect(headers["referrer-policy"], kind).toBe("same-origin");
    expect(headers["x-powered-by"], kind).toBeUndefined();
    // Served over plain HTTP here: no Strict-Transport-Security.
    expect(headers["strict-transport-security"], kind).toBeUndefined();
  }
  expect(answers["a page that does not exist"].status()).toBe(404);
  expect(answers["a /v2 error"].status()).toBe(401);
  // An API client reads a refusal in the error shape, not the admin's page "not found".
  expect(answers["a /v2 path no route serves"].status()).toBe(404);
  expect(await answers["a /v2 path no route serves"].json()).toMatchObject({ error: { code: "not_found" } });
  expect(answers["an /api error"].status()).toBeGreaterThanOrEqual(400);
});

test.describe("Content-Security-Policy", () => {
  // The one deliberate 404 below logs its status in the console.
  test.use({ expectedConsoleErrors: [/status of 404 \(Not Found\).*\/no-such-page/] });

  test("no page breaks its policy: the front door, pages reached by the app's links, the API reference, a 404", async ({
    page,
  }) => {
    const problems = await watchPolicy(page);

    await visit(page, "/");
    await visit(page, "/sign-in");
    await visit(page, "/invitation/not-a-real-token");
    await test.step("a page that does not exist", async () => {
      const response = await page.goto("/no-such-page");
      expect(response?.status()).toBe(404);
      expect(response?.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
      await page.waitForLoadState("networkidle");
    });

    await page.goto("/sign-in");
    await signIn(page);
    await page.waitForURL("**/users");
    await expect(page.getByTestId("users-total")).toBeVisible();
    // Pages reached by the app's own links (client-side navigation), then each by its address.
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Surveys" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Surveys" })).toBeVisible();
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Users" }).click();
    await expect(page.getByTestId("users-total")).toBeVisible();
    await page.getByRole("button", { name: "More filters" }).click();
    // Every page by its address is the walk's: e2e/11-accessibility.spec.ts watches the policy on each.

    await test.step("/docs, opening an operation", async () => {
      await page.goto("/docs");
      await expect(page.getByRole("heading", { name: "Users & Surveys API" })).toBeVisible();
      await page
        .getByRole("navigation", { name: "Contents" })
        .getByRole("link", { name: /List users/ })
        .click();
      await expect(page.getByRole("article", { name: "List users" })).toBeVisible();
      await page.waitForLoadState("networkidle");
    });

    expect(problems, "no Content-Security-Policy violation").toEqual([]);
  });
});

test.describe("framing", () => {
  // The browser says why it refused each frame, and the control frame (headers removed) may not
  // take the sign-in page's autofocus: both are the point of this test.
  test.use({
    // (One pattern: Playwright would read a list of two as a value and its fixture options.)
    expectedConsoleErrors: [
      /Framing '[^']+' violates the following Content Security Policy directive: "frame-ancestors 'none'"|Blocked autofocusing on a <input> element in a cross-origin subframe/,
    ],
  });

  /**
   * Opens a page of another origin that frames `path` and says whether the framed page rendered.
   * `strip` removes our two framing headers on the way, as a check that the test can see framing.
   */
  async function frame(
    page: Page,
    baseURL: string,
    path: string,
    strip: boolean,
  ): Promise<{ rendered: boolean; headers: Record<string, string> }> {
    const target = `${baseURL}${path}`;
    // Another origin on the same machine (so no private-network rule of the browser interferes).
    const other = new URL(baseURL);
    other.hostname = other.hostname === "localhost" ? "127.0.0.1" : "localhost";
    const attacker = `${other.origin}/attacker${path}`;
    await page.route(attacker, (route) =>
      route.fulfill({
        contentType: "text/html",
        body: `<!doctype html><title>Attacker</title><iframe src="${target}" width="900" height="600"></iframe>`,
      }),
    );
    let headers: Record<string, string> = {};
    await page.route(target, async (route) => {
      const response = await route.fetch();
      headers = response.headers();
      const served = { ...headers };
      if (strip) {
        delete served["content-security-policy"];
        delete served["x-frame-options"];
      }
      await route.fulfill({ response, headers: served });
    });
    await page.goto(attacker);
    await page.waitForLoadState("networkidle");
    const rendered = (await page.frameLocator("iframe").getByRole("heading", { level: 1 }).count()) > 0;
    await page.unrouteAll();
    return { rendered, headers };
  }

  test("another site cannot frame an admin page or the sign-in page", async ({ page, baseURL }) => {
    await openSignedIn(page, "/users");
    await expect(page.getByTestId("users-total")).toBeVisible();

    for (const path of ["/users", "/sign-in"]) {
      await test.step(path, async () => {
        const framed = await frame(page, baseURL!, path, false);
        expect(framed.headers["x-frame-options"]).toBe("DENY");
        expect(framed.headers["content-security-policy"]).toContain("frame-ancestors 'none'");
        expect(framed.rendered, `${path} does not render inside another site's frame`).toBe(false);
      });
    }
    // The same page without those headers does render there: the checks above can fail.
    expect(
      (await frame(page, baseURL!, "/sign-in", true)).rendered,
      "/sign-in without its headers renders in the frame",
    ).toBe(true);
  });
});
