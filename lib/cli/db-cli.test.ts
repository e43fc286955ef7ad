/**
 * `npm run db` as a user runs it: any directory name serves, the printed URI authenticates, and a
 * start-up failure prints its real cause.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { MongoClient } from "mongodb";
import { afterEach, describe, expect, it } from "vitest";

const root = path.resolve(__dirname, "..", "..");
const tsx = path.join(root, "node_modules", ".bin", "tsx");

interface Run {
  /** Resolves with the first line on stdout (the URI), or rejects when the process exits first. */
  uri: Promise<string>;
  exit: Promise<{ code: number | null; stderr: string }>;
  stop(): void;
}

function runDb(args: string[]): Run {
  const child = spawn(tsx, [path.join(root, "lib", "cli", "db.ts"), ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exit = new Promise<{ code: number | null; stderr: string }>((resolve) => child.once("exit", (code) => resolve({ code, stderr })));
  const uri = new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      if (stdout.includes("\n")) resolve(stdout.split("\n")[0]);
    });
    void exit.then(({ code }) => reject(new Error(`db.ts exited with ${code}: ${stderr}`)));
  });
  uri.catch(() => undefined);
  return { uri, exit, stop: () => child.kill("SIGTERM") };
}

// Each run starts a Node process with tsx: seconds each, more on a busy machine.
describe("npm run db -- --dir D", { timeout: 60_000 }, () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });
  const tempParent = async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "db-cli-"));
    dirs.push(dir);
    return dir;
  };

  it("serves a directory whose last part has a dot, and prints a URI that authenticates", async () => {
    const dir = path.join(await tempParent(), "tmp.AbC123");
    const run = runDb(["--dir", dir, "--port", "0"]);
    try {
      const uri = await run.uri;
      expect(uri).toMatch(/^mongodb:\/\/embedded:[\w-]+@127\.0\.0\.1:\d+\/\?authSource=admin&directConnection=true$/);
      const client = await MongoClient.connect(uri);
      try {
        await client.db("cli").collection("values").insertOne({ _id: 1 as never });
        expect(await client.db("cli").collection("values").countDocuments()).toBe(1);
      } finally {
        await client.close();
      }
      expect(fs.statSync(path.join(dir, "data.mdb")).isFile()).toBe(true);
    } finally {
      run.stop();
    }
    expect((await run.exit).code).toBe(0);
  });

  it("prints the real cause of a start-up failure, in one line", async () => {
    const dir = path.join(await tempParent(), "broken");
    // LMDB's data file is a directory: the environment cannot open.
    fs.mkdirSync(path.join(dir, "data.mdb"), { recursive: true });
    const run = runDb(["--dir", dir, "--port", "0"]);
    const { code, stderr } = await run.exit;
    expect(code).toBe(1);
    expect(stderr).toContain("The embedded database could not start: Is a directory");
    expect(stderr).not.toContain("TypeError");
  });
});
