/**
 * `npm run bench:ui [-- --clicks 20 --delay 300]`: from list to record in the admin pages, in
 * Chromium against the production build on a fresh seeded DATA_DIR (as e2e/serve.ts runs it).
 * For users and surveys, each click on a list row is timed from the click event to the record's
 * e-mail (users) or code (surveys) on the record page, then Back to the list; printed as median and
 * p95, once as the server answers and once with every `/v2` answer held back `--delay` ms in the
 * browser (an admin across a network). Asserts nothing.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium, type Page } from "@playwright/test";
import { exitWithUsageError, parseCommandLine } from "@/lib/base/shared/command-line";
import { freePort, waitFor } from "./server";

const root = path.resolve(__dirname, "..", "..", "..");
const bin = (name: string) => path.join(root, "node_modules", ".bin", name);

const usage = `Usage: npm run bench:ui -- [options]

Times a click on a list row until the record shows (users: its e-mail; surveys: its code), in
Chromium against the production build (built first when missing) on a fresh seeded database;
prints median and p95 as the server answers, then with every /v2 answer delayed.

  --clicks N     timed clicks on each list, per round (default 20)
  --delay MS     the delay of the second round, in milliseconds (default 300)
  --port P       port of the server (default 0: a free one)
  --build        run \`next build\` even when a build exists
  --browser PATH the Chromium to drive (default /usr/bin/chromium)`;

const { values: opts } = parseCommandLine(usage, {
  options: {
    clicks: { type: "string", default: "20" },
    delay: { type: "string", default: "300" },
    port: { type: "string", default: "0" },
    build: { type: "boolean", default: false },
    browser: { type: "string", default: "/usr/bin/chromium" },
  },
});

function whole(name: "clicks" | "delay" | "port", min: number, max: number): number {
  const text = String(opts[name]);
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) exitWithUsageError(`--${name} must be a whole number from ${min} to ${max}, not ${JSON.stringify(text)}`);
  return value;
}

const CLICKS = whole("clicks", 1, 1000);
const DELAY = whole("delay", 0, 60_000);
const WARMUP = 2;
const CLICK_TIMEOUT_MS = 15_000;
const ADMIN_EMAIL = "bench-ui@example.com";
const ADMIN_PASSWORD = "bench-ui-password";

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];

interface Figures {
  median: number;
  p95: number;
  min: number;
  max: number;
  n: number;
}

function figures(times: number[]): Figures {
  const sorted = [...times].sort((a, b) => a - b);
  return { median: quantile(sorted, 0.5), p95: quantile(sorted, 0.95), min: sorted[0], max: sorted[sorted.length - 1], n: sorted.length };
}

/**
 * Arms the page to time the next click: from the click event to the first frame after the record
 * page (its path) shows `text` and the list is gone.
 */
async function armTimer(page: Page, href: string, text: string, listMarker: string): Promise<void> {
  // A script as text: tsx would wrap named functions in a helper the page does not have.
  // \`void\`: the page must not wait here for the promise, which settles only after the click.
  await page.evaluate(`
    void (window.__benchResult = new Promise((resolve) => {
      const target = ${JSON.stringify({ href, text, listMarker })};
      let start = 0;
      const observer = new MutationObserver(() => {
        const shown = location.pathname === target.href && !document.querySelector(target.listMarker) && (document.querySelector("main")?.textContent ?? "").includes(target.text);
        if (start && shown) {
          observer.disconnect();
          requestAnimationFrame(() => resolve(performance.now() - start));
        }
      });
      document.addEventListener("click", (event) => {
        start = event.timeStamp;
        observer.observe(document.body, { childList: true, subtree: true, characterData: true });
      }, { capture: true, once: true });
    }));
  `);
}

interface ListCase {
  name: string;
  listUrl: string;
  /** An element only the list page has. */
  listMarker: string;
  /** The text of the row that the record page shows (the e-mail or the code), from its cells. */
  cellIndex: number;
}

const CASES: ListCase[] = [
  { name: "users", listUrl: "/users?limit=50", listMarker: '[data-testid="users-total"]', cellIndex: 1 },
  { name: "surveys", listUrl: "/surveys?limit=100&isActive=all", listMarker: '[data-testid="surveys-total"]', cellIndex: 1 },
];

async function timeClicks(page: Page, base: string, list: ListCase): Promise<number[]> {
  await page.goto(base + list.listUrl);
  const rows = page.locator("tbody tr");
  await rows.first().waitFor();
  const count = await rows.count();
  const times: number[] = [];
  for (let click = 0; click < CLICKS + WARMUP; click++) {
    const row = rows.nth(click % count);
    await row.waitFor();
    const href = (await row.locator("td").first().getByRole("link").getAttribute("href")) ?? "";
    const text = (await row.locator("td").nth(list.cellIndex).innerText()).trim();
    await armTimer(page, href, text, list.listMarker);
    // The last cell (the date) is no link: the row itself opens the record.
    await row.locator("td").last().click();
    const elapsed = Number(await page.evaluate(`Promise.race([window.__benchResult, new Promise((resolve) => setTimeout(() => resolve(-1), ${CLICK_TIMEOUT_MS}))])`));
    if (elapsed < 0) throw new Error(`${list.name}: ${href} did not show ${JSON.stringify(text)} within ${CLICK_TIMEOUT_MS} ms of the click`);
    if (click >= WARMUP) times.push(elapsed);
    await page.goBack();
    await page.locator(list.listMarker).waitFor();
  }
  return times;
}

async function main(): Promise<void> {
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
  };
  const run = (command: string, args: string[]) => {
    const result = spawnSync(command, args, { cwd: root, env, stdio: ["ignore", "ignore", "inherit"] });
    if (result.status !== 0) throw new Error(`${path.basename(command)} ${args.join(" ")} failed`);
  };
  let server: ChildProcess | undefined;
  const browser = await chromium.launch({ executablePath: String(opts.browser), args: ["--no-sandbox", "--disable-gpu"] });
  try {
    if (opts.build || !existsSync(path.join(root, ".next", "BUILD_ID"))) {
      process.stderr.write("next build…\n");
      run(bin("next"), ["build"]);
    }
    process.stderr.write("seeding…\n");
    run(bin("tsx"), ["lib/tools/seed/cli.ts"]);
    server = spawn(bin("next"), ["start", "--port", String(port), "--hostname", "127.0.0.1"], { cwd: root, env, stdio: ["ignore", "ignore", "inherit"] });
    const exited = new Promise<never>((_, reject) => server?.once("exit", (code) => reject(new Error(`the server exited with code ${code}`))));
    exited.catch(() => undefined);
    await Promise.race([waitFor(`${base}/api/health`, 150_000), exited]);

    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${base}/sign-in`);
    await page.getByLabel("E-mail").fill(ADMIN_EMAIL);
    await page.getByLabel("Password").fill(ADMIN_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL("**/users");

    const results: { round: string; list: string; figures: Figures }[] = [];
    for (const delay of [0, DELAY]) {
      const round = delay === 0 ? "as is" : `/v2 +${delay} ms`;
      if (delay > 0) {
        await page.route(/\/v2\//, async (route) => {
          await new Promise((resolve) => setTimeout(resolve, delay));
          // A request the page dropped meanwhile (a navigation) is already handled.
          await route.continue().catch(() => undefined);
        });
      }
      for (const list of CASES) {
        process.stderr.write(`${list.name}, ${round}…\n`);
        results.push({ round, list: list.name, figures: figures(await timeClicks(page, base, list)) });
      }
      await page.unrouteAll({ behavior: "ignoreErrors" });
    }

    const ms = (value: number) => `${value.toFixed(0)} ms`.padStart(8);
    console.log(`From a click on a list row to the record on screen (${CLICKS} clicks each, after ${WARMUP} not counted)`);
    console.log(`${"round".padEnd(14)}${"list".padEnd(9)}${"median".padStart(8)}${"p95".padStart(8)}${"min".padStart(8)}${"max".padStart(8)}`);
    for (const { round, list, figures: f } of results) console.log(`${round.padEnd(14)}${list.padEnd(9)}${ms(f.median)}${ms(f.p95)}${ms(f.min)}${ms(f.max)}`);
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
