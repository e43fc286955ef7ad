/**
 * The server the end-to-end runs use (Playwright's `webServer`): the production build (built
 * here, once per run), a fresh temporary DATA_DIR filled by `npm run seed`, then the server entry `npm start` runs (lib/platform/cli/server.ts), as one process.
 *
 *   E2E_PORT        the port (playwright.config.ts picks a free one)
 *   E2E_SKIP_BUILD  1: reuse an existing build (local reruns; a run from a clean clone builds)
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { E2E_ADMIN_EMAIL, E2E_ADMIN_PASSWORD } from "./env";

const root = path.resolve(__dirname, "..");
const bin = (name: string) => path.join(root, "node_modules", ".bin", name);
const port = process.env.E2E_PORT ?? "3100";
const dataDir = mkdtempSync(path.join(tmpdir(), "e2e-data-"));

const env: NodeJS.ProcessEnv = {
  ...process.env,
  DATA_DIR: dataDir,
  PORT: port,
  ADMIN_EMAIL: E2E_ADMIN_EMAIL,
  ADMIN_PASSWORD: E2E_ADMIN_PASSWORD,
  SMTP_URL: "",
  MONGODB_URI: "",
  LOG_LEVEL: "warn",
  NEXT_TELEMETRY_DISABLED: "1",
  // The webhooks spec delivers to a receiver it starts on this machine, and sees a retry soon.
  WEBHOOK_ALLOWED_HOSTS: "127.0.0.1",
  WEBHOOK_RETRY_BASE_MS: "1000",
};

function run(command: string, args: string[], extra: Record<string, string> = {}): void {
  const result = spawnSync(command, args, { cwd: root, env: { ...env, ...extra }, stdio: "inherit" });
  if (result.status !== 0) {
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(result.status ?? 1);
  }
}

if (process.env.E2E_SKIP_BUILD === "1" && existsSync(path.join(root, ".next", "BUILD_ID"))) {
  console.log("[e2e] reusing the existing production build");
} else {
  console.log("[e2e] next build (types are checked by npm run typecheck)");
  run(bin("next"), ["build"], { BUILD_SKIP_TYPECHECK: "1" });
}
console.log(`[e2e] seeding ${dataDir}`);
run(bin("tsx"), ["lib/tools/seed/cli.ts"]);

console.log(`[e2e] the server entry (lib/platform/cli/server.ts, one process) on port ${port}`);
const server = spawn(process.execPath, ["--import", "tsx", "lib/platform/cli/server.ts"], {
  cwd: root,
  env: { ...env, NODE_ENV: "production", NEXT_MANUAL_SIG_HANDLE: "true" },
  stdio: "inherit",
});
const stop = (signal: NodeJS.Signals) => server.kill(signal);
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
server.on("exit", (code) => {
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(code ?? 0);
});
