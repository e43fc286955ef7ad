/**
 * `npm run test:conformance [-- DIR]`: runs MongoDB's unified-format CRUD tests in DIR (default
 * `../shared/mongo-crud-spec` next to the repository) against the embedded database, started in a
 * fresh temporary directory, or against `CONFORMANCE_URI` when set.
 *
 * Prints one line per test (PASS / FAIL / SKIP file › description — reason) and, last, exactly
 * `N passed, M failed, K skipped`. Exit code 1 when any test failed.
 */
import { MongoClient } from "mongodb";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { exitWithUsageError, parseCommandLine } from "../../base/shared/command-line";
import { probeDriver } from "./driver";
import { listTestFiles, loadTestFile, type LoadedFile } from "./loader";
import { Reporter } from "./report";
import { detectServer } from "./requirements";
import { Runner } from "./runner";

const REPO_ROOT = path.resolve(__dirname, "../../..");

interface Target {
  uri: string;
  description: string;
  close(): Promise<void>;
}

async function startTarget(): Promise<Target> {
  const external = process.env.CONFORMANCE_URI;
  if (external) return { uri: external, description: `CONFORMANCE_URI`, close: async () => undefined };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "conformance-"));
  try {
    const { startEmbeddedMongo } = await import("../index");
    const server = await startEmbeddedMongo({ dir, testCommands: true });
    return {
      uri: server.uri,
      description: `embedded database (${dir})`,
      close: async () => {
        await server.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

const usage = `Usage: npm run test:conformance [-- DIR]

Runs MongoDB's unified-format CRUD tests found in DIR (default ../shared/mongo-crud-spec beside the
repository) against the embedded database in a fresh temporary directory, or against
CONFORMANCE_URI when it is set. Prints PASS / FAIL / SKIP per test and a summary line; exit
code 1 when a test failed, 2 when DIR does not exist.`;

function resolveDir(arg: string | undefined): string {
  if (!arg) return path.resolve(REPO_ROOT, "../shared/mongo-crud-spec");
  // `npm run` changes into the package root; INIT_CWD is where the user typed the command.
  return path.resolve(process.env.INIT_CWD ?? process.cwd(), arg);
}

const reporter = new Reporter();

async function main(): Promise<number> {
  const { positionals } = parseCommandLine(usage, { options: {}, allowPositionals: true });
  if (positionals.length > 1) exitWithUsageError(`Name one directory, not ${positionals.length}`);
  const dir = resolveDir(positionals[0]);
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
    console.error(`conformance: no such directory: ${dir}`);
    console.log(reporter.summary());
    return 2;
  }
  const files: LoadedFile[] = listTestFiles(dir).map((f) => loadTestFile(f, dir));

  let target: Target | undefined;
  let internal: MongoClient | undefined;
  try {
    try {
      target = await startTarget();
      internal = new MongoClient(target.uri, { serverSelectionTimeoutMS: 15_000 });
      await internal.connect();
    } catch (e) {
      const reason = `target server unavailable: ${(e as Error).message}`;
      console.error(`conformance: ${reason}`);
      for (const f of files) {
        for (const t of f.file?.tests ?? [])
          reporter.add({ file: f.name, description: t.description, status: "FAIL", reason });
      }
      console.log(reporter.summary());
      return 1;
    }
    const server = await detectServer(internal, target.uri);
    console.log(
      `conformance: ${files.length} file(s) in ${dir}; target ${target.description}, server ${server.versionString}, ` +
        `maxWireVersion ${server.maxWireVersion}, topology ${server.topology}`,
    );
    const driver = await probeDriver(target.uri);
    const runner = new Runner({ uri: target.uri, internal, server, driver });
    for (const f of files) await runner.runFile(f, (r) => reporter.add(r));
  } finally {
    await internal?.close().catch(() => undefined);
    await target
      ?.close()
      .catch((e) => console.error(`conformance: closing the server failed: ${(e as Error).message}`));
  }
  console.log(reporter.summary());
  return reporter.count("FAIL") > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(e);
    reporter.add({ file: "(runner)", description: "conformance run", status: "FAIL", reason: String(e) });
    console.log(reporter.summary());
    process.exit(1);
  },
);
