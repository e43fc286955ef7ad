/**
 * `npm run bench:ui [-- --clicks 15 --api-delay 300]`: the first click as a person meets it, in
 * Chromium against the production build on a fresh seeded DATA_DIR (as e2e/serve.ts runs it).
 * Every sample is a new browser context (no router cache, no HTTP cache, no query cache) that
 * loads a page afresh, lets it settle, rests the pointer 100 ms on what it will click, clicks, and
 * times from the click event to the first frame that shows the record's data:
 *  - users, surveys: a row of the list (its date cell, not the link) to the record page showing the
 *    user's e-mail or the survey's code;
 *  - results: the Results tab of a freshly loaded survey page to the results' totals;
 *  - created: "Create survey" on a filled form to the new survey's page showing its code.
 * Printed as median and p90 per case, once as the server answers and once with every `GET /v2`
 * answer held back `--api-delay` ms in the browser (an admin across a network). Asserts nothing.
 */
import { exitWithUsageError, parseCommandLine } from "@/lib/base/shared/command-line";
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from "@playwright/test";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort, waitFor } from "./server";

const root = path.resolve(__dirname, "..", "..", "..");
const bin = (name: string) => path.join(root, "node_modules", ".bin", name);

const usage = `Usage: npm run bench:ui -- [options]

Times the first click from a freshly loaded page to the record on screen (users, surveys, a
survey's results, a survey just created), in Chromium against the production build (built first
when missing) on a fresh seeded database; each sample is a new browser context. Prints median and
p90 as the server answers, then with every GET /v2 answer delayed.

  --clicks N       timed samples of each case, per round (default 15)
  --api-delay MS   the delay of GET /v2 answers in the second round (default 300; 0: one round only)
  --cases LIST     comma-separated cases among users,surveys,results,created (default: all)
  --port P         port of the server (default 0: a free one)
  --build          run \`next build\` even when a build exists
  --browser PATH   the Chromium to drive (default /usr/bin/chromium)`;

const { values: opts } = parseCommandLine(usage, {
  options: {
    clicks: { type: "string", default: "15" },
    "api-delay": { type: "string", default: "300" },
    cases: { type: "string", default: "users,surveys,results,created" },
    port: { type: "string", default: "0" },
    build: { type: "boolean", default: false },
    browser: { type: "string", default: "/usr/bin/chromium" },
  },
});

function whole(name: "clicks" | "api-delay" | "port", min: number, max: number): number {
  const text = String(opts[name]);
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max)
    exitWithUsageError(`--${name} must be a whole number from ${min} to ${max}, not ${JSON.stringify(text)}`);
  return value;
}

const CLICKS = whole("clicks", 1, 1000);
const API_DELAY = whole("api-delay", 0, 60_000);
/** One sample of each case first, not counted: the server's own first render of each route. */
const WARMUP = 1;
const HOVER_MS = 100;
const SAMPLE_TIMEOUT_MS = 15_000;
const ADMIN_EMAIL = "bench-ui@example.com";
const ADMIN_PASSWORD = "bench-ui-password";

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];

interface Figures {
  median: number;
  p90: number;
  min: number;
  max: number;
  n: number;
}

function figures(times: number[]): Figures {
  const sorted = [...times].sort((a, b) => a - b);
  return {
    median: quantile(sorted, 0.5),
    p90: quantile(sorted, 0.9),
    min: sorted[0],
    max: sorted[sorted.length - 1],
    n: sorted.length,
  };
}

/** What the page must show for the sample to end: a path, text in <main>, an element, no list. */
interface Shown {
  path: string;
  text?: string;
  selector?: string;
  gone?: string;
}

/**
 * Arms the page to time the next click: from the click event to the first frame after the page
 * shows what `shown` asks (checked on each change of the document).
 */
async function armTimer(page: Page, shown: Shown): Promise<void> {
  // A script as text: tsx would wrap named functions in a helper the page does not have.
  // `void`: the page must not wait here for the promise, which settles only after the click.
  await page.evaluate(`
    void (window.__benchResult = new Promise((resolve) => {
      const target = ${JSON.stringify(shown)};
      const path = new RegExp(target.path);
      let start = 0;
      const check = () => {
        if (!start || !path.test(location.pathname)) return;
        if (target.gone && document.querySelector(target.gone)) return;
        if (target.selector && !document.querySelector(target.selector)) return;
        if (target.text && !(document.querySelector("main")?.textContent ?? "").includes(target.text)) return;
        observer.disconnect();
        requestAnimationFrame(() => resolve(performance.now() - start));
      };
      const observer = new MutationObserver(check);
      document.addEventListener("click", (event) => {
        start = event.timeStamp;
        observer.observe(document.body, { childList: true, subtree: true, characterData: true, attributes: true });
      }, { capture: true, once: true });
    }));
  `);
}

async function hoverAndClick(page: Page, target: Locator): Promise<number> {
  await target.hover();
  await page.waitForTimeout(HOVER_MS);
  await target.click();
  const elapsed = Number(
    await page.evaluate(
      `Promise.race([window.__benchResult, new Promise((resolve) => setTimeout(() => resolve(-1), ${SAMPLE_TIMEOUT_MS}))])`,
    ),
  );
  if (elapsed < 0)
    throw new Error(`${page.url()}: the page did not show its data within ${SAMPLE_TIMEOUT_MS} ms of the click`);
  return elapsed;
}

/** A page loaded afresh and settled, as a person who has just looked at it: its requests done. */
async function settle(page: Page, url: string, ready: Locator): Promise<void> {
  await page.goto(url);
  await ready.waitFor();
  await page.waitForLoadState("networkidle", { timeout: 10_000 }).catch(() => undefined);
}

const ESCAPE = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

type Sample = (page: Page, base: string, index: number) => Promise<number>;

/** A click on the `index`-th row of a list (its last cell: the row itself opens the record). */
const listCase =
  (listUrl: string, listMarker: string): Sample =>
  async (page, base, index) => {
    const rows = page.locator("tbody tr");
    await settle(page, base + listUrl, rows.first());
    const row = rows.nth(index % (await rows.count()));
    const href = (await row.locator("td").first().getByRole("link").getAttribute("href")) ?? "";
    const text = (await row.locator("td").nth(1).innerText()).trim();
    await armTimer(page, { path: `^${ESCAPE(href)}$`, text, gone: listMarker });
    return hoverAndClick(page, row.locator("td").last());
  };

interface Context {
  surveyIds: string[];
}

const CASES: Record<string, (context: Context) => Sample> = {
  users: () => listCase("/users?limit=50", '[data-testid="users-total"]'),
  surveys: () => listCase("/surveys?limit=100&isActive=all", '[data-testid="surveys-total"]'),
  results:
    ({ surveyIds }) =>
    async (page, base, index) => {
      const id = surveyIds[index % surveyIds.length];
      const tab = page.getByRole("navigation", { name: "Survey" }).getByRole("link", { name: "Results", exact: true });
      await settle(page, `${base}/surveys/${id}`, tab);
      await armTimer(page, { path: `^/surveys/${id}/results$`, selector: '[data-testid="results-totals"]' });
      return hoverAndClick(page, tab);
    },
  created: () => async (page, base, index) => {
    const code = `bench_${Date.now().toString(36)}_${index}`;
    const create = page.getByRole("button", { name: "Create survey" });
    await settle(page, `${base}/surveys/new`, create);
    await page.getByLabel("Code").fill(code);
    await page.getByLabel("Name").fill(`Bench survey ${index}`);
    await page.getByText("✓ available").waitFor();
    await armTimer(page, { path: "^/surveys/[0-9a-f]{24}$", text: code });
    return hoverAndClick(page, create);
  },
};

async function surveyIdsWithAnswers(context: BrowserContext, base: string): Promise<string[]> {
  const page = await context.newPage();
  await page.goto(`${base}/surveys?limit=100&isActive=all`);
  const links = page.locator("tbody tr td:first-child a");
  await links.first().waitFor();
  const hrefs = await links.evaluateAll((elements) => elements.map((element) => element.getAttribute("href") ?? ""));
  await page.close();
  return hrefs.map((href) => href.split("/").pop() ?? "").filter((id) => /^[0-9a-f]{24}$/.test(id));
}

async function runCase(
  browser: Browser,
  storageState: Awaited<ReturnType<BrowserContext["storageState"]>>,
  base: string,
  delay: number,
  sample: Sample,
): Promise<number[]> {
  const times: number[] = [];
  for (let index = 0; index < CLICKS + WARMUP; index++) {
    // A new context each time: nothing of an earlier sample (router cache, HTTP cache, queries) helps.
    const context = await browser.newContext({ storageState, viewport: { width: 1280, height: 800 } });
    if (delay > 0) {
      await context.route(/\/v2\//, async (route) => {
        if (route.request().method() === "GET") await new Promise((resolve) => setTimeout(resolve, delay));
        // A request the page dropped meanwhile (a navigation) is already handled.
        await route.continue().catch(() => undefined);
      });
    }
    try {
      const elapsed = await sample(await context.newPage(), base, index);
      if (index >= WARMUP) times.push(elapsed);
    } finally {
      await context.close();
    }
  }
  return times;
}

async function main(): Promise<void> {
  const chosen = String(opts.cases)
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = chosen.filter((name) => !(name in CASES));
  if (unknown.length > 0 || chosen.length === 0)
    exitWithUsageError(`--cases takes users, surveys, results and created, not ${JSON.stringify(String(opts.cases))}`);
  const port = whole("port", 0, 65535) || (await freePort());
  const base = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), "bench-ui-"));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    ADMIN_EMAIL,
    ADMIN_PASSWORD,
    SMTP_URL: "",
    MONGODB_URI: "",
    LOG_LEVEL: "warn",
    NEXT_TELEMETRY_DISABLED: "1",
    RATE_LIMIT_PER_MINUTE: "1000000000",
  };
  const run = (command: string, args: string[]) => {
    const result = spawnSync(command, args, { cwd: root, env, stdio: ["ignore", "ignore", "inherit"] });
    if (result.status !== 0) throw new Error(`${path.basename(command)} ${args.join(" ")} failed`);
  };
  let server: ChildProcess | undefined;
  const browser = await chromium.launch({
    executablePath: String(opts.browser),
    args: ["--no-sandbox", "--disable-gpu"],
  });
  try {
    if (opts.build || !existsSync(path.join(root, ".next", "BUILD_ID"))) {
      process.stderr.write("next build…\n");
      run(bin("next"), ["build"]);
    }
    process.stderr.write("seeding…\n");
    run(bin("tsx"), ["lib/tools/seed/cli.ts"]);
    server = spawn(bin("next"), ["start", "--port", String(port), "--hostname", "127.0.0.1"], {
      cwd: root,
      env,
      stdio: ["ignore", "ignore", "inherit"],
    });
    const exited = new Promise<never>((_, reject) =>
      server?.once("exit", (code) => reject(new Error(`the server exited with code ${code}`))),
    );
    exited.catch(() => undefined);
    await Promise.race([waitFor(`${base}/api/health`, 150_000), exited]);

    const signIn = await browser.newContext();
    const page = await signIn.newPage();
    await page.goto(`${base}/sign-in`);
    await page.getByLabel("E-mail").fill(ADMIN_EMAIL);
    await page.getByLabel("Password").fill(ADMIN_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL("**/users");
    const storageState = await signIn.storageState();
    const context: Context = { surveyIds: await surveyIdsWithAnswers(signIn, base) };
    await signIn.close();

    const results: { round: string; name: string; figures: Figures }[] = [];
    for (const delay of API_DELAY > 0 ? [0, API_DELAY] : [0]) {
      const round = delay === 0 ? "as is" : `GET /v2 +${delay} ms`;
      for (const name of chosen) {
        process.stderr.write(`${name}, ${round}…\n`);
        results.push({
          round,
          name,
          figures: figures(await runCase(browser, storageState, base, delay, CASES[name](context))),
        });
      }
    }

    const ms = (value: number) => `${value.toFixed(0)} ms`.padStart(8);
    console.log(
      `From the click to the data on screen, each sample from a freshly loaded page after a ${HOVER_MS} ms hover (${CLICKS} samples each, after ${WARMUP} not counted)`,
    );
    console.log(
      `${"round".padEnd(18)}${"case".padEnd(10)}${"median".padStart(8)}${"p90".padStart(8)}${"min".padStart(8)}${"max".padStart(8)}`,
    );
    for (const { round, name, figures: f } of results)
      console.log(`${round.padEnd(18)}${name.padEnd(10)}${ms(f.median)}${ms(f.p90)}${ms(f.min)}${ms(f.max)}`);
  } finally {
    await browser.close();
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server?.once("exit", resolve));
      server.kill("SIGTERM");
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:ui failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
