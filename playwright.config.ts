import { defineConfig, devices } from "@playwright/test";
import { execFileSync } from "node:child_process";

/**
 * End-to-end runs in Debian's Chromium against the production build on a fresh, seeded
 * DATA_DIR (e2e/serve.ts). E2E_BASE_URL points the tests at a server already running instead.
 */

// The config is read again by each worker: the port chosen here travels to them in the env.
process.env.E2E_PORT ??= execFileSync(process.execPath, [
  "-e",
  "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close()})",
]).toString();

const baseURL = process.env.E2E_BASE_URL ?? `http://localhost:${process.env.E2E_PORT}`;

export default defineConfig({
  testDir: "e2e",
  // The README's pictures are made when asked (DOCS_SCREENSHOTS=1), not on every run (docs/testing.md).
  testIgnore: process.env.DOCS_SCREENSHOTS === "1" ? [] : ["**/25-docs-screenshots.spec.ts"],
  outputDir: "test-results",
  // The scenarios share one server and its data; one worker keeps them independent of timing.
  workers: 1,
  fullyParallel: false,
  forbidOnly: Boolean(process.env.CI),
  // CI (.ci/run) allows one retry: a test that passes only on it is reported "flaky" in the log,
  // with the first attempt's failure report, and is a bug to chase (docs/testing.md).
  retries: Number(process.env.E2E_RETRIES ?? 0),
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [["list"]],
  use: {
    baseURL,
    ...devices["Desktop Chrome"],
    viewport: { width: 1280, height: 800 },
    // E2E_TRACE=on-first-retry (.ci/run): a trace is recorded only when a failed test runs again (docs/testing.md).
    trace: (process.env.E2E_TRACE as "on-first-retry" | undefined) ?? "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    },
  },
  webServer: process.env.E2E_BASE_URL
    ? undefined
    : {
        command: "npx tsx e2e/serve.ts",
        url: `${baseURL}/api/health`,
        // A build on a busy two-core machine takes minutes.
        timeout: 15 * 60_000,
        reuseExistingServer: false,
        stdout: "pipe",
        stderr: "pipe",
        gracefulShutdown: { signal: "SIGTERM", timeout: 10_000 },
      },
});
