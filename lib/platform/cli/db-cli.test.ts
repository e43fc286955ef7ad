/**
 * `npm run db` as a user runs it: any directory name serves, the printed URIs work (first the
 * owner's without credentials, then the one with them), and a
 * start-up failure prints its real cause; `backup` and `restore` answer with their exit codes.
 */
import { MongoClient } from "mongodb";
import { spawn } from "node:child_process";
import fs from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const root = path.resolve(__dirname, "..", "..", "..");
const tsx = path.join(root, "node_modules", ".bin", "tsx");

interface Run {
  /** Resolves with the first line on stdout (the URI), or rejects when the process exits first. */
  uri: Promise<string>;
  /** Resolves with the first two lines on stdout. */
  uris: Promise<string[]>;
  exit: Promise<{ code: number | null; stderr: string }>;
  stop(): void;
}

function runDb(args: string[]): Run {
  const child = spawn(tsx, [path.join(root, "lib", "platform", "cli", "db.ts"), ...args], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exit = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.once("exit", (code) => resolve({ code, stderr })),
  );
  const uri = new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      if (stdout.includes("\n")) resolve(stdout.split("\n")[0]);
    });
    void exit.then(({ code }) => reject(new Error(`db.ts exited with ${code}: ${stderr}`)));
  });
  uri.catch(() => undefined);
  const uris = new Promise<string[]>((resolve, reject) => {
    child.stdout.on("data", () => {
      const lines = stdout.split("\n");
      if (lines.length > 2) resolve(lines.slice(0, 2));
    });
    void exit.then(({ code }) => reject(new Error(`db.ts exited with ${code}: ${stderr}`)));
  });
  uris.catch(() => undefined);
  return { uri, uris, exit, stop: () => child.kill("SIGTERM") };
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** One run to its end: exit code, stdout and stderr. */
function runToEnd(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(tsx, [path.join(root, "lib", "platform", "cli", "db.ts"), ...args], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
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

  it("serves a directory whose last part has a dot, and prints the owner's URI, then one that authenticates", async () => {
    const dir = path.join(await tempParent(), "tmp.AbC123");
    const run = runDb(["--dir", dir, "--port", "0"]);
    try {
      const [owners, uri] = await run.uris;
      expect(owners).toMatch(/^mongodb:\/\/127\.0\.0\.1:\d+\/\?directConnection=true$/);
      expect(uri).toMatch(/^mongodb:\/\/embedded:[\w-]+@127\.0\.0\.1:\d+\/\?authSource=admin&directConnection=true$/);
      expect(new URL(owners).port).toBe(new URL(uri).port);
      for (const [i, address] of [owners, uri].entries()) {
        const client = await MongoClient.connect(address);
        try {
          await client
            .db("cli")
            .collection("values")
            .insertOne({ _id: i as never });
          expect(await client.db("cli").collection("values").countDocuments()).toBe(i + 1);
        } finally {
          await client.close();
        }
      }
      expect(fs.statSync(path.join(dir, "data.mdb")).isFile()).toBe(true);
    } finally {
      run.stop();
    }
    expect((await run.exit).code).toBe(0);
  });

  it("--no-peer-trust prints the URI with credentials first, and asks the owner's TCP clients for them", async () => {
    const dir = path.join(await tempParent(), "db");
    const run = runDb(["--dir", dir, "--port", "0", "--no-peer-trust"]);
    try {
      const uri = await run.uri;
      expect(uri).toMatch(/^mongodb:\/\/embedded:[\w-]+@127\.0\.0\.1:\d+\//);
      const client = await MongoClient.connect(`mongodb://127.0.0.1:${new URL(uri).port}/?directConnection=true`);
      try {
        await expect(client.db("cli").collection("values").findOne()).rejects.toMatchObject({ code: 13 });
      } finally {
        await client.close();
      }
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

  it("serves the replica set's secondary on --secondary-port, where a secondary read preference reads", async () => {
    const free = net.createServer();
    await new Promise<void>((resolve) => free.listen(0, "127.0.0.1", resolve));
    const secondaryPort = (free.address() as net.AddressInfo).port;
    await new Promise((resolve) => free.close(resolve));
    const run = runDb([
      "--dir",
      path.join(await tempParent(), "db"),
      "--port",
      "0",
      "--secondary-port",
      String(secondaryPort),
    ]);
    try {
      const uri = (await run.uri).replace("directConnection=true", "replicaSet=rs0");
      const client = await MongoClient.connect(uri, { readPreference: "secondary", monitorCommands: true });
      try {
        const sentTo: string[] = [];
        client.on("commandStarted", (e) => sentTo.push(`${e.commandName} ${e.address}`));
        expect(await client.db("cli").collection("values").countDocuments()).toBe(0);
        expect(sentTo).toEqual([`aggregate 127.0.0.1:${secondaryPort}`]);
      } finally {
        await client.close();
      }
    } finally {
      run.stop();
    }
    expect((await run.exit).code).toBe(0);
  });
});

describe("npm run db -- backup FILE / restore FILE", { timeout: 120_000 }, () => {
  let parent: string;
  afterEach(async () => {
    if (parent) await rm(parent, { recursive: true, force: true });
  });

  it("backs up a served directory, refuses to overwrite or to restore into it, restores elsewhere", async () => {
    parent = await mkdtemp(path.join(tmpdir(), "db-cli-backup-"));
    const dir = path.join(parent, "db");
    const file = path.join(parent, "backup.mdb");
    const server = runDb(["--dir", dir, "--port", "0"]);
    try {
      const client = await MongoClient.connect(await server.uri);
      try {
        await client
          .db("app")
          .collection("users")
          .insertMany([{ n: 1 }, { n: 2 }, { n: 3 }]);
      } finally {
        await client.close();
      }

      const backup = await runToEnd(["backup", file, "--dir", dir]);
      expect(backup.code, backup.stderr).toBe(0);
      expect(backup.stdout).toMatch(
        new RegExp(
          `^Backed up ${escape(dir)} to ${escape(file)}: [\\d.]+ MB, 1 collection, 3 documents, in [\\d.]+ s\\.\\n$`,
        ),
      );
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);

      const [again, intoServed, junk] = await Promise.all([
        runToEnd(["backup", file, "--dir", dir]),
        runToEnd(["restore", file, "--dir", dir, "--force"]),
        (async () => {
          fs.writeFileSync(path.join(parent, "junk.mdb"), "no database here");
          return runToEnd(["restore", path.join(parent, "junk.mdb"), "--dir", path.join(parent, "junk")]);
        })(),
      ]);
      expect(again).toMatchObject({
        code: 1,
        stdout: "",
        stderr: `${file} already exists: add --force to replace it.\n`,
      });
      expect(intoServed.code).toBe(1);
      expect(intoServed.stderr).toMatch(
        new RegExp(
          `^${escape(dir)} is served by process \\d+ on port \\d+: stop it before restoring into its directory\\.\\n$`,
        ),
      );
      expect(junk).toMatchObject({
        code: 1,
        stderr: `${path.join(parent, "junk.mdb")} is not a backup of the embedded database: it is not an LMDB file.\n`,
      });
      expect(fs.existsSync(path.join(parent, "junk"))).toBe(false);

      const restored = path.join(parent, "restored");
      const restore = await runToEnd(["restore", file, "--dir", restored]);
      expect(restore.code, restore.stderr).toBe(0);
      expect(restore.stdout).toMatch(
        new RegExp(
          `^Restored ${escape(file)} into ${escape(restored)} \\(a new database\\): [\\d.]+ MB, 1 collection, 3 documents, in [\\d.]+ s\\.\\n$`,
        ),
      );
      const occupied = await runToEnd(["restore", file, "--dir", restored]);
      expect(occupied).toMatchObject({
        code: 1,
        stderr: `${restored} already holds a database: add --force to replace it (its credentials are kept).\n`,
      });
    } finally {
      server.stop();
    }
    expect((await server.exit).code).toBe(0);
  });

  it("a command line it cannot run is one line and exit code 2", async () => {
    const results = await Promise.all([
      runToEnd(["backup"]),
      runToEnd(["restore", "a.mdb", "--port", "1"]),
      runToEnd(["copy", "a.mdb"]),
      runToEnd(["backup", "a.mdb", "b.mdb"]),
      runToEnd(["--force"]),
    ]);
    expect(results.map(({ code, stdout, stderr }) => ({ code, stdout, stderr }))).toEqual([
      { code: 2, stdout: "", stderr: "backup needs the FILE to write (see --help)\n" },
      {
        code: 2,
        stdout: "",
        stderr:
          "--port, --host, --replSet, --secondary-port and --no-peer-trust are for serving, not for restore (see --help)\n",
      },
      { code: 2, stdout: "", stderr: 'Unknown command "copy": backup or restore (see --help)\n' },
      { code: 2, stdout: "", stderr: 'Unexpected argument "b.mdb" (see --help)\n' },
      { code: 2, stdout: "", stderr: "--force is for backup and restore (see --help)\n" },
    ]);
  });
});
