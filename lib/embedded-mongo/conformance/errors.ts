/** Checking a raised error against an `expectError` object (spec: "expectedError"). */
import {
  MongoBulkWriteError,
  MongoClientBulkWriteError,
  MongoError,
  MongoOperationTimeoutError,
  MongoServerError,
  WriteError,
} from "mongodb";
import type { ExpectedError } from "./loader";
import { match, show, type Doc, type MatchContext } from "./matcher";
import { bulkWriteResultToDoc, clientBulkWriteResultToDoc } from "./operations";

/**
 * Server error code names (mongo/src/mongo/base/error_codes.yml) for the codes a CRUD server
 * commonly returns; used when a bulk write error exposes only `code`, as the spec allows.
 */
const CODE_NAMES: Record<number, string> = {
  1: "InternalError",
  2: "BadValue",
  4: "NoSuchKey",
  8: "UnknownError",
  9: "FailedToParse",
  11: "UserNotFound",
  13: "Unauthorized",
  14: "TypeMismatch",
  16: "InvalidLength",
  17: "ProtocolError",
  20: "IllegalOperation",
  26: "NamespaceNotFound",
  27: "IndexNotFound",
  28: "PathNotViable",
  40: "ConflictingUpdateOperators",
  43: "CursorNotFound",
  48: "NamespaceExists",
  50: "MaxTimeMSExpired",
  52: "DollarPrefixedFieldName",
  53: "InvalidIdField",
  54: "NotSingleValueField",
  55: "InvalidDBRef",
  56: "EmptyFieldName",
  57: "DottedFieldName",
  59: "CommandNotFound",
  61: "ShardKeyNotFound",
  66: "ImmutableField",
  67: "CannotCreateIndex",
  68: "IndexAlreadyExists",
  72: "InvalidOptions",
  79: "UnknownReplWriteConcern",
  85: "IndexOptionsConflict",
  86: "IndexKeySpecsConflict",
  91: "ShutdownInProgress",
  96: "OperationFailed",
  100: "UnsatisfiableWriteConcern",
  112: "WriteConflict",
  115: "CommandNotSupported",
  121: "DocumentValidationFailure",
  166: "CommandNotSupportedOnView",
  167: "OptionNotSupportedOnView",
  168: "InvalidPipelineOperator",
  189: "PrimarySteppedDown",
  251: "NoSuchTransaction",
  263: "OperationNotSupportedInTransaction",
  10107: "NotWritablePrimary",
  11000: "DuplicateKey",
  11600: "InterruptedAtShutdown",
  11601: "Interrupted",
  13435: "NotPrimaryNoSecondaryOk",
};

function writeErrorsOf(error: unknown): { code?: number; errmsg?: string; codeName?: string }[] {
  if (error instanceof MongoBulkWriteError) {
    const list = Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors];
    return list
      .filter((w): w is WriteError => !!w)
      .map((w) => ({
        code: w.code,
        errmsg: w.errmsg,
        codeName: (w.err as unknown as Doc)?.codeName as string | undefined,
      }));
  }
  if (error instanceof MongoClientBulkWriteError) {
    return [...error.writeErrors.values()].map((w) => ({ code: w.code, errmsg: w.message }));
  }
  return [];
}

function writeConcernErrorsOf(error: unknown): { code?: number; errmsg?: string; codeName?: string }[] {
  const out: { code?: number; errmsg?: string; codeName?: string }[] = [];
  if (error instanceof MongoServerError && error.writeConcernError) out.push(error.writeConcernError as never);
  if (error instanceof MongoBulkWriteError && error.err) out.push(error.err as never);
  if (error instanceof MongoClientBulkWriteError) out.push(...(error.writeConcernErrors as never[]));
  return out;
}

function labels(error: unknown): string[] {
  if (error instanceof MongoError) return error.errorLabels;
  return [];
}

/** Returns a failure text, or null when the error satisfies every assertion. */
export function checkExpectedError(error: unknown, expected: ExpectedError, ctx: MatchContext): string | null {
  const err = error as Error & Doc;
  const desc = `${err?.name ?? "error"}: ${err?.message ?? String(error)}`;
  const isServer = error instanceof MongoServerError;

  if (expected.isClientError === true && isServer) return `expected a client-side error, got server error ${desc}`;
  if (expected.isClientError === false && !isServer) return `expected a server error, got client-side ${desc}`;
  if (expected.isTimeoutError === true && !(error instanceof MongoOperationTimeoutError))
    return `expected a timeout error, got ${desc}`;
  if (expected.isTimeoutError === false && error instanceof MongoOperationTimeoutError)
    return `expected no timeout error, got ${desc}`;

  const nested = [...writeErrorsOf(error), ...writeConcernErrorsOf(error)];
  const cause = error instanceof MongoClientBulkWriteError ? (error.cause as Doc | undefined) : undefined;

  if (expected.errorContains !== undefined) {
    const needle = expected.errorContains.toLowerCase();
    const messages = [String(err?.message ?? ""), ...nested.map((n) => String(n.errmsg ?? ""))];
    if (cause?.message) messages.push(String(cause.message));
    if (!messages.some((m) => m.toLowerCase().includes(needle)))
      return `expected error message to contain "${expected.errorContains}", got ${desc}`;
  }

  if (expected.errorCode !== undefined) {
    const codes = [err?.code, cause?.code, ...nested.map((n) => n.code)].filter((c) => c !== undefined);
    if (!codes.some((c) => Number(c) === expected.errorCode))
      return `expected error code ${expected.errorCode}, got ${codes.length ? codes.join("/") : "none"} (${desc})`;
  }

  if (expected.errorCodeName !== undefined) {
    const want = expected.errorCodeName.toLowerCase();
    const names = [err?.codeName, cause?.codeName, ...nested.map((n) => n.codeName)].filter(
      (n): n is string => typeof n === "string",
    );
    let ok = names.some((n) => n.toLowerCase() === want);
    if (!ok && !names.length) {
      // Bulk write errors may expose only the code: translate the expected name to a code.
      const entry = Object.entries(CODE_NAMES).find(([, n]) => n.toLowerCase() === want);
      if (!entry) return `cannot compare errorCodeName ${expected.errorCodeName}: no codeName in ${desc}`;
      const codes = [err?.code, ...nested.map((n) => n.code)].filter((c) => c !== undefined);
      ok = codes.some((c) => Number(c) === Number(entry[0]));
    }
    if (!ok) return `expected error code name ${expected.errorCodeName}, got ${names.join("/") || "none"} (${desc})`;
  }

  for (const label of expected.errorLabelsContain ?? []) {
    if (!labels(error).includes(label)) return `expected error label ${label}, got [${labels(error).join(", ")}]`;
  }
  for (const label of expected.errorLabelsOmit ?? []) {
    if (labels(error).includes(label)) return `expected no error label ${label}`;
  }

  if (expected.errorResponse !== undefined) {
    const response = (cause ?? (isServer ? (error as MongoServerError).errorResponse : undefined)) as Doc | undefined;
    const m = match(expected.errorResponse, response, { root: true, ctx });
    if (m) return `errorResponse ${m.path ? "at " + m.path + " " : ""}${m.message}`;
  }

  if (expected.expectResult !== undefined) {
    let result: unknown;
    if (error instanceof MongoBulkWriteError) result = error.result ? bulkWriteResultToDoc(error.result) : undefined;
    else if (error instanceof MongoClientBulkWriteError)
      result = clientBulkWriteResultToDoc(error.partialResult as unknown as Doc | undefined);
    const m = match(expected.expectResult, result, { root: true, ctx });
    if (m) return `error's result ${m.path ? "at " + m.path + " " : ""}${m.message}`;
  }

  if (expected.writeErrors !== undefined) {
    if (!(error instanceof MongoClientBulkWriteError)) return `expected writeErrors, got ${desc}`;
    const actual = new Map([...error.writeErrors.entries()].map(([i, w]) => [String(i), { ...w } as Doc]));
    for (const [index, exp] of Object.entries(expected.writeErrors)) {
      if (!actual.has(index)) return `expected a write error at index ${index}`;
      const m = match(exp, actual.get(index), { root: true, ctx });
      if (m) return `writeErrors[${index}] ${m.path} ${m.message}`;
    }
    const extra = [...actual.keys()].filter((k) => !(k in (expected.writeErrors as Doc)));
    if (extra.length) return `unexpected write error(s) at index ${extra.join(", ")}`;
  }

  if (expected.writeConcernErrors !== undefined) {
    const actual = writeConcernErrorsOf(error);
    if (actual.length !== expected.writeConcernErrors.length)
      return `expected ${expected.writeConcernErrors.length} write concern error(s), got ${show(actual)}`;
    for (let i = 0; i < actual.length; i++) {
      const m = match(expected.writeConcernErrors[i], actual[i], { root: true, ctx });
      if (m) return `writeConcernErrors[${i}] ${m.path} ${m.message}`;
    }
  }
  return null;
}
