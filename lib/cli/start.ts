/**
 * `npm start`: builds the app when there is no production build yet, then serves it on PORT.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { ConfigError, loadConfig } from "../config";

const root = path.resolve(__dirname, "..", "..");
const nextBin = path.join(root, "node_modules", ".bin", "next");

/** Runs `next <args>` with our stdio; resolves with its exit code, forwarding our signals to it. */
function runNext(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(nextBin, args, { cwd: root, stdio: "inherit", env });
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    process.on("SIGINT", forward);
    process.on("SIGTERM", forward);
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      process.off("SIGINT", forward);
      process.off("SIGTERM", forward);
      resolve(code ?? (signal === "SIGINT" ? 130 : signal === "SIGTERM" ? 143 : 1));
    });
  });
}

async function main(): Promise<number> {
  const { port } = loadConfig();

  if (!existsSync(path.join(root, ".next", "BUILD_ID"))) {
    console.log("No production build yet: running `next build` first (once).");
    const code = await runNext(["build"]);
    if (code !== 0) return code;
  }

  // lib/db closes the database on SIGINT/SIGTERM and then exits; Next's own handler would race it
  // to process.exit and could cut that short.
  return runNext(["start", "--port", String(port)], { ...process.env, NEXT_MANUAL_SIG_HANDLE: "true" });
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof ConfigError ? error.message : error);
    process.exit(1);
  },
);
