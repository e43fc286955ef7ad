/**
 * The scripts read their configuration as the server does: Next.js (in the server entry, as in `next start`) adds the variables of
 * `.env.production.local`, `.env.local`, `.env.production` and `.env` in the working directory
 * (the environment wins over the files), so `npm start` and the CLIs load them the same way,
 * with the very function Next.js uses. Otherwise an `ADMIN_PASSWORD` or `DATA_DIR` written in
 * `.env.local` would reach the server and not a CLI run before it.
 */
import { loadEnvConfig } from "@next/env";

/** Loads the `.env*` files of `dir` into `process.env`; returns the files' names. */
export function loadEnvFiles(dir = process.cwd()): string[] {
  const quiet = { info: () => undefined, error: (...args: unknown[]) => console.error(...args) };
  return loadEnvConfig(dir, false, quiet).loadedEnvFiles.map((file) => file.path);
}
