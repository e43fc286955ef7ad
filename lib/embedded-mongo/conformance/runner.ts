/** Executing test files and tests (spec: "Test Runner Implementation"). */
import { MongoClient } from "mongodb";
import { DataLoader } from "./data";
import { driverLimitation, type DriverQuirks } from "./driver";
import { EntityMap, UnsupportedError } from "./entities";
import { checkExpectedError } from "./errors";
import { checkExpectedEvents } from "./events";
import type { LoadedFile, Operation, TestCase, TestFile } from "./loader";
import { MatchError, show, type MatchContext } from "./matcher";
import { checkResult, executeOperation, saveResult, unsupportedReason, type OperationEnv } from "./operations";
import { requirementsUnmet, type ServerInfo } from "./requirements";

type Status = "PASS" | "FAIL" | "SKIP";

export interface TestResult {
  file: string;
  description: string;
  status: Status;
  /** Failure or skip reason. */
  reason?: string;
}

export interface RunnerOptions {
  uri: string;
  internal: MongoClient;
  server: ServerInfo;
  driver: DriverQuirks;
  /** Time limit of one operation (the server under test might hang). */
  operationTimeoutMS?: number;
}

/** A failure of the test (as opposed to a runner error); its message is the reason. */
class TestFailure extends Error {}
class TestSkipped extends Error {}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TestFailure(`${what} did not complete within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

function errorText(e: unknown): string {
  if (e instanceof Error) {
    const code = (e as { code?: unknown }).code;
    return `${e.name}${code !== undefined ? ` (code ${String(code)})` : ""}: ${e.message}`;
  }
  return String(e);
}

export class Runner {
  private readonly data: DataLoader;
  private readonly timeoutMS: number;

  constructor(private readonly opts: RunnerOptions) {
    this.data = new DataLoader(opts.internal);
    this.timeoutMS = opts.operationTimeoutMS ?? 30_000;
  }

  /** Runs every test of a file, calling `report` as each one finishes. */
  async runFile(loaded: LoadedFile, report: (r: TestResult) => void): Promise<void> {
    const name = loaded.name;
    if (loaded.error) {
      const tests = loaded.file?.tests ?? [];
      if (tests.length === 0) report({ file: name, description: "(file)", status: "FAIL", reason: loaded.error });
      for (const t of tests) report({ file: name, description: t.description, status: "FAIL", reason: loaded.error });
      return;
    }
    const file = loaded.file!;
    const fileUnmet = await requirementsUnmet(file.runOnRequirements, this.opts.server, this.opts.internal);
    for (const test of file.tests) {
      if (fileUnmet) {
        report({ file: name, description: test.description, status: "SKIP", reason: fileUnmet });
        continue;
      }
      report(await this.runTest(name, file, test));
    }
  }

  async runTest(fileName: string, file: TestFile, test: TestCase): Promise<TestResult> {
    const base = { file: fileName, description: test.description };
    if (test.skipReason) return { ...base, status: "SKIP", reason: `skipReason: ${test.skipReason}` };
    const unmet = await requirementsUnmet(test.runOnRequirements, this.opts.server, this.opts.internal);
    if (unmet) return { ...base, status: "SKIP", reason: unmet };
    const unsupported = unsupportedReason(
      test.operations,
      this.opts.server.failPoints,
      this.opts.server.topology === "single",
    );
    if (unsupported) return { ...base, status: "SKIP", reason: unsupported };
    const limitation = driverLimitation(test.operations, this.opts.driver);
    if (limitation) return { ...base, status: "SKIP", reason: limitation };
    if (test.expectLogMessages)
      return {
        ...base,
        status: "SKIP",
        reason: "expectLogMessages (driver logging) is not implemented by this runner",
      };

    const entities = new EntityMap(this.opts.uri);
    const failPoints: { client: MongoClient; name: string }[] = [];
    const ctx: MatchContext = {
      getEntity: (id) => entities.bsonValue(id),
      getSessionLsid: (id) => entities.sessionLsid(id),
    };
    try {
      try {
        await withTimeout(this.data.load(file.initialData), this.timeoutMS, "loading initialData");
      } catch (e) {
        if (e instanceof TestFailure) throw e;
        throw new TestFailure(`initialData could not be loaded: ${errorText(e)}`);
      }
      try {
        await withTimeout(entities.createAll(file.createEntities ?? []), this.timeoutMS, "creating entities");
      } catch (e) {
        if (e instanceof UnsupportedError) throw new TestSkipped(e.message);
        if (e instanceof TestFailure) throw e;
        throw new TestFailure(`entities could not be created: ${errorText(e)}`);
      }
      for (const c of entities.clients()) c.events.start();

      const env: OperationEnv = {
        entities,
        internal: this.opts.internal,
        onFailPoint: async (client, failPoint) => {
          await client.db("admin").command(failPoint);
          failPoints.push({ client, name: String(failPoint.configureFailPoint) });
        },
      };
      for (let i = 0; i < test.operations.length; i++) {
        await this.runOperation(test.operations[i], i, env, ctx);
      }

      for (const c of entities.clients()) c.events.stop();
      for (const expected of test.expectEvents ?? []) {
        const client = entities.client(expected.client);
        const failure = checkExpectedEvents(expected, client.events, ctx);
        if (failure) throw new TestFailure(`expectEvents: ${failure}`);
      }
      const outcomeFailure = await withTimeout(this.data.checkOutcome(test.outcome), this.timeoutMS, "reading outcome");
      if (outcomeFailure) throw new TestFailure(outcomeFailure);
      return { ...base, status: "PASS" };
    } catch (e) {
      if (e instanceof TestSkipped) return { ...base, status: "SKIP", reason: e.message };
      if (e instanceof TestFailure) return { ...base, status: "FAIL", reason: e.message };
      return { ...base, status: "FAIL", reason: `runner error: ${errorText(e)}` };
    } finally {
      for (const fp of failPoints) {
        await fp.client
          .db("admin")
          .command({ configureFailPoint: fp.name, mode: "off" })
          .catch(() => undefined);
      }
      await entities.close();
    }
  }

  private async runOperation(op: Operation, index: number, env: OperationEnv, ctx: MatchContext): Promise<void> {
    const label = `operation ${index} (${op.name}${op.object === "testRunner" ? "" : " on " + op.object})`;
    let outcome: Awaited<ReturnType<typeof executeOperation>> | undefined;
    let error: unknown;
    let failed = false;
    try {
      outcome = await withTimeout(executeOperation(op, env), this.timeoutMS, label);
    } catch (e) {
      if (e instanceof TestFailure) throw e;
      if (e instanceof UnsupportedError) throw new TestSkipped(e.message);
      if (e instanceof MatchError) throw new TestFailure(`${label}: ${e.message}`);
      failed = true;
      error = e;
    }
    if (op.ignoreResultAndError) return;
    if (op.object === "testRunner") {
      if (failed) throw new TestFailure(`${label}: ${errorText(error)}`);
      return;
    }
    if (op.expectError) {
      if (!failed) throw new TestFailure(`${label}: expected an error, got result ${show(outcome?.result)}`);
      const failure = checkExpectedError(error, op.expectError, ctx);
      if (failure) throw new TestFailure(`${label}: ${failure}`);
      return;
    }
    if (failed) throw new TestFailure(`${label}: unexpected error ${errorText(error)}`);
    if (op.expectResult !== undefined) {
      const failure = checkResult(op.expectResult, outcome!, env.entities);
      if (failure) throw new TestFailure(`${label}: ${failure}`);
    }
    if (op.saveResultAsEntity) saveResult(env.entities, op.saveResultAsEntity, outcome!.result);
  }
}
