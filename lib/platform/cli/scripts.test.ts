import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = path.resolve(__dirname, "..", "..", "..");
const tsx = path.join(root, "node_modules", ".bin", "tsx");

/** Every npm script that runs a TypeScript entry file with tsx, by name. */
const scripts = Object.entries(
  JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).scripts as Record<string, string>,
)
  // `npm start` execs Node with tsx's loader, so that npm's signals reach it (docs/deployment.md).
  .map(([name, command]) => [name, /^(?:tsx|exec node --import tsx) (\S+\.ts)$/.exec(command)?.[1]] as const)
  .filter((entry): entry is readonly [string, string] => entry[1] !== undefined);

// Each run starts Node with tsx: seconds each on a busy machine.
describe("every script's command line", { timeout: 120_000 }, () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), "usersurveys-scripts-"));
  });

  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  const cli = async (file: string, args: string[]) => {
    const env = { ...process.env, DATA_DIR: dataDir, MONGODB_URI: "", NODE_OPTIONS: "" };
    try {
      const { stdout, stderr } = await run(tsx, [file, ...args], { cwd: root, env, timeout: 90_000 });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  };

  it("covers the scripts that must answer --help", () => {
    expect(scripts.map(([name]) => name).sort()).toEqual(
      expect.arrayContaining([
        "bench:api",
        "bench:backup",
        "bench:db",
        "bench:ui",
        "company",
        "db",
        "seed",
        "start",
        "test:conformance",
        "token",
      ]),
    );
  });

  it("--help prints the usage and exits 0, doing nothing else", async () => {
    const results = await Promise.all(scripts.map(([, file]) => cli(file, ["--help"])));
    for (const [index, result] of results.entries()) {
      const [name] = scripts[index];
      expect(result.code, `${name}: ${result.stderr}`).toBe(0);
      expect(result.stdout, name).toMatch(/^Usage:/);
    }
    // Nothing was built, started or created: the data directory is as empty as it was.
    expect(await readdir(dataDir)).toEqual([]);
  });

  it("an unknown option is one line on stderr and a non-zero exit, with no stack trace", async () => {
    const results = await Promise.all(scripts.map(([, file]) => cli(file, ["--bogus"])));
    for (const [index, result] of results.entries()) {
      const [name] = scripts[index];
      expect(result.code, name).not.toBe(0);
      expect(result.stdout, name).toBe("");
      const lines = result.stderr.trimEnd().split("\n");
      expect(lines, name).toHaveLength(1);
      expect(lines[0], name).toContain("--bogus");
      expect(result.stderr, name).not.toMatch(/^\s+at /m);
    }
    expect(await readdir(dataDir)).toEqual([]);
  });

  it("db backup and restore: --help names them; with no database, one line, exit 1, nothing created", async () => {
    const db = scripts.find(([name]) => name === "db")![1];
    const help = await cli(db, ["--help"]);
    expect(help.stdout).toContain("npm run db -- backup FILE [--dir DIR] [--force]");
    expect(help.stdout).toContain("npm run db -- restore FILE [--dir DIR] [--force]");
    const file = path.join(dataDir, "backup.mdb");
    const [backup, restore] = await Promise.all([cli(db, ["backup", file]), cli(db, ["restore", file])]);
    expect(backup).toEqual({
      code: 1,
      stdout: "",
      stderr: `There is no database in ${path.join(dataDir, "db")} (no data.mdb): name its directory with --dir.\n`,
    });
    expect(restore).toEqual({ code: 1, stdout: "", stderr: `There is no backup file at ${file}.\n` });
    expect(await readdir(dataDir)).toEqual([]);
  });
});
