/** Finding and parsing unified-format test files (JSON, Extended JSON relaxed or canonical). */
import { EJSON } from "bson";
import fs from "node:fs";
import path from "node:path";
import type { Doc } from "./matcher";

export interface RunOnRequirement {
  minServerVersion?: string;
  maxServerVersion?: string;
  topologies?: string[];
  serverless?: "require" | "forbid" | "allow";
  serverParameters?: Doc;
  auth?: boolean;
  authMechanism?: string;
  csfle?: boolean;
}

export interface CollectionData {
  collectionName: string;
  databaseName: string;
  createOptions?: Doc;
  documents: Doc[];
}

export interface Operation {
  name: string;
  object: string;
  arguments?: Doc;
  expectResult?: unknown;
  expectError?: ExpectedError;
  saveResultAsEntity?: string;
  ignoreResultAndError?: boolean;
}

export interface ExpectedError {
  isError?: boolean;
  isClientError?: boolean;
  isTimeoutError?: boolean;
  errorContains?: string;
  errorCode?: number;
  errorCodeName?: string;
  errorLabelsContain?: string[];
  errorLabelsOmit?: string[];
  errorResponse?: Doc;
  writeErrors?: Doc;
  writeConcernErrors?: Doc[];
  expectResult?: unknown;
}

export interface ExpectedEventsForClient {
  client: string;
  eventType?: "command" | "cmap" | "sdam";
  events: Doc[];
  ignoreExtraEvents?: boolean;
}

export interface TestCase {
  description: string;
  runOnRequirements?: RunOnRequirement[];
  skipReason?: string;
  operations: Operation[];
  expectEvents?: ExpectedEventsForClient[];
  expectLogMessages?: unknown[];
  outcome?: CollectionData[];
}

export interface TestFile {
  description: string;
  schemaVersion: string;
  runOnRequirements?: RunOnRequirement[];
  createEntities?: Doc[];
  initialData?: CollectionData[];
  tests: TestCase[];
}

export interface LoadedFile {
  /** File name relative to the folder, used in the report. */
  name: string;
  file?: TestFile;
  /** Set when the file could not be read or parsed, or its schema version is unsupported. */
  error?: string;
}

/** The newest schema version this runner implements (1.x files up to this minor are accepted). */
const SUPPORTED_SCHEMA = [1, 21] as const;

function schemaSupported(version: string): boolean {
  const [major, minor = 0] = version.split(".").map((x) => Number(x));
  return major === SUPPORTED_SCHEMA[0] && minor <= SUPPORTED_SCHEMA[1];
}

/** Lists `*.json` test files under `dir` (recursively), sorted by relative path. */
export function listTestFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && entry.name.endsWith(".json")) out.push(full);
    }
  };
  walk(dir);
  return out.sort((a, b) => path.relative(dir, a).localeCompare(path.relative(dir, b)));
}

export function loadTestFile(fullPath: string, dir: string): LoadedFile {
  const name = path.relative(dir, fullPath);
  let parsed: unknown;
  try {
    // Relaxed parsing: plain JSON numbers become JS numbers; $numberLong etc. are honoured.
    parsed = EJSON.parse(fs.readFileSync(fullPath, "utf8"), { relaxed: true });
  } catch (e) {
    return { name, error: `cannot parse: ${(e as Error).message}` };
  }
  const file = parsed as TestFile;
  if (!file || typeof file !== "object" || !Array.isArray(file.tests)) {
    return { name, error: "not a unified test file (no tests array)" };
  }
  if (typeof file.schemaVersion !== "string" || !schemaSupported(file.schemaVersion)) {
    return { name, file, error: `unsupported schemaVersion ${String(file.schemaVersion)}` };
  }
  return { name, file };
}
