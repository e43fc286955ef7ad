/**
 * The database process of the embedded database's benchmarks: a bench script forks itself with
 * `--serve DIR`, so the database runs in a process of its own, as `npm start` runs it.
 */
import { fork } from "node:child_process";
import { startEmbeddedMongo } from "./index";

/** In the forked child: serves `dir` and reports the URI to the parent. */
export async function serve(dir: string): Promise<void> {
  const server = await startEmbeddedMongo({ dir });
  process.send?.({ uri: server.uri });
  process.on("disconnect", () => void server.close().then(() => process.exit(0)));
}

/** Forks `script` (the calling bench) as the database process of `dir`. */
export function startServerProcess(script: string, dir: string): Promise<{ uri: string; stop: () => void }> {
  const child = fork(script, ["--serve", dir], { execArgv: process.execArgv, stdio: "inherit" });
  return new Promise((resolve, reject) => {
    child.once("message", (m) => resolve({ uri: (m as { uri: string }).uri, stop: () => child.disconnect() }));
    child.once("exit", (code) => reject(new Error(`database process exited with ${code}`)));
  });
}
