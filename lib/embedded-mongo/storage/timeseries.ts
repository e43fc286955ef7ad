/**
 * Time-series collections, as far as a client sees them: `create` validates `timeseries` and
 * `expireAfterSeconds` with MongoDB's codes and fills in the bucketing parameters,
 * `listCollections` reports `type: "timeseries"`, an insert needs a date in the time field, the
 * TTL monitor removes measurements older than `expireAfterSeconds` (ttl.ts), and updates keep
 * MongoDB 8's limits (multi, no upsert, filter and change only the metaField). Measurements are
 * stored one document each, not in buckets: what buckets change (TTL removing a whole bucket at
 * once, the order of unsorted results) is listed in README.md.
 */
import type { Document } from "bson";
import { MongoCommandError } from "../errors";
import { isPlainObject } from "./keys";
import type { CollectionMeta } from "./store";

/** The seconds a bucket spans and rounds to, per granularity (MongoDB's `timeseries_options.cpp`). */
const GRANULARITY: Record<string, { maxSpan: number; rounding: number }> = {
  seconds: { maxSpan: 60 * 60, rounding: 60 },
  minutes: { maxSpan: 60 * 60 * 24, rounding: 60 * 60 },
  hours: { maxSpan: 60 * 60 * 24 * 30, rounding: 60 * 60 * 24 },
};

const TIMESERIES_FIELDS = new Set([
  "timeField",
  "metaField",
  "granularity",
  "bucketMaxSpanSeconds",
  "bucketRoundingSeconds",
]);
/** The `create` options a time-series collection may have beside `timeseries` (`kAllowedCollectionCreationOptions`). */
const ALLOWED_WITH_TIMESERIES = new Set([
  "timeseries",
  "expireAfterSeconds",
  "collation",
  "storageEngine",
  "indexOptionDefaults",
  "temp",
]);
const MAX_SPAN_LIMIT = 60 * 60 * 24 * 365;

export interface TimeseriesOptions {
  timeField: string;
  metaField?: string;
  granularity?: string;
  bucketMaxSpanSeconds: number;
  bucketRoundingSeconds?: number;
}

export function timeseriesOf(meta: CollectionMeta | undefined): TimeseriesOptions | undefined {
  return meta?.options.timeseries as TimeseriesOptions | undefined;
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "double";
  if (typeof value === "boolean") return "bool";
  return typeof value === "object" ? "object" : typeof value;
}

function wholeSeconds(field: string, value: unknown): number {
  if (typeof value !== "number" && typeof (value as { toNumber?: unknown })?.toNumber !== "function") {
    throw new MongoCommandError(
      "TypeMismatch",
      `BSON field 'timeseries.${field}' is the wrong type '${typeName(value)}', expected types '[long, int, decimal, double]'`,
    );
  }
  const seconds = Number(value);
  if (seconds < 1)
    throw new MongoCommandError(
      "Location51024",
      `BSON field 'timeseries.${field}' value must be >= 1, actual value '${seconds}'`,
    );
  if (seconds > MAX_SPAN_LIMIT)
    throw new MongoCommandError(
      "InvalidOptions",
      `BSON field 'timeseries.${field}' value must be <= ${MAX_SPAN_LIMIT}, actual value '${seconds}'`,
    );
  return Math.trunc(seconds);
}

/**
 * Validates a `create` command's time-series options as MongoDB 8 does and returns them as
 * `listCollections` reports them: `bucketMaxSpanSeconds` filled in from the granularity
 * (default `seconds`), or `bucketRoundingSeconds` and `bucketMaxSpanSeconds` without one.
 */
export function createTimeseriesOptions(namespace: string, options: Document): void {
  const raw = options.timeseries as unknown;
  if (!isPlainObject(raw))
    throw new MongoCommandError(
      "TypeMismatch",
      `BSON field 'create.timeseries' is the wrong type '${typeName(raw)}', expected type 'object'`,
    );
  for (const field of Object.keys(options)) {
    if (ALLOWED_WITH_TIMESERIES.has(field)) continue;
    if (field === "capped" && !options.capped) continue;
    throw new MongoCommandError("InvalidOptions", `${namespace}: 'timeseries' is not allowed with '${field}'`);
  }
  for (const field of Object.keys(raw)) {
    if (!TIMESERIES_FIELDS.has(field))
      throw new MongoCommandError("Location40415", `BSON field 'timeseries.${field}' is an unknown field.`);
  }
  const { timeField, metaField, granularity } = raw;
  if (timeField === undefined)
    throw new MongoCommandError("Location40414", "BSON field 'timeseries.timeField' is missing but a required field");
  for (const [field, value] of [
    ["timeField", timeField],
    ["metaField", metaField],
    ["granularity", granularity],
  ] as const) {
    if (value !== undefined && typeof value !== "string") {
      throw new MongoCommandError(
        "TypeMismatch",
        `BSON field 'timeseries.${field}' is the wrong type '${typeName(value)}', expected type 'string'`,
      );
    }
  }
  const time = timeField as string;
  const mustBeTopLevel = (field: string) =>
    new MongoCommandError("InvalidOptions", `${namespace}: '${field}' must be a top-level field and not contain a '.'`);
  if (time.includes(".")) throw mustBeTopLevel("timeField");
  if (metaField !== undefined) {
    if (metaField === "_id") throw new MongoCommandError("InvalidOptions", "'metaField' cannot be \"_id\"");
    if (metaField === time)
      throw new MongoCommandError("InvalidOptions", "'metaField' cannot be the same as 'timeField'");
    if ((metaField as string).includes(".")) throw mustBeTopLevel("metaField");
  }
  if (granularity !== undefined && !(granularity in GRANULARITY)) {
    throw new MongoCommandError(
      "BadValue",
      `Enumeration value '${granularity as string}' for field 'timeseries.granularity' is not a valid value.`,
    );
  }
  const maxSpan =
    raw.bucketMaxSpanSeconds === undefined ? undefined : wholeSeconds("bucketMaxSpanSeconds", raw.bucketMaxSpanSeconds);
  const rounding =
    raw.bucketRoundingSeconds === undefined
      ? undefined
      : wholeSeconds("bucketRoundingSeconds", raw.bucketRoundingSeconds);
  const result: TimeseriesOptions = { timeField: time, bucketMaxSpanSeconds: 0 };
  if (metaField !== undefined) result.metaField = metaField as string;
  if (granularity !== undefined) {
    const defaults = GRANULARITY[granularity as string];
    if (maxSpan !== undefined && maxSpan !== defaults.maxSpan) {
      throw new MongoCommandError(
        "InvalidOptions",
        `Timeseries 'bucketMaxSpanSeconds' is not configurable to a value other than the default of ${defaults.maxSpan} for the provided granularity`,
      );
    }
    if (rounding !== undefined && rounding !== defaults.rounding) {
      throw new MongoCommandError(
        "InvalidOptions",
        `Timeseries 'bucketRoundingSeconds' is not configurable to a value other than the default of ${defaults.rounding} for the provided granularity`,
      );
    }
    result.granularity = granularity as string;
    result.bucketMaxSpanSeconds = defaults.maxSpan;
  } else if (maxSpan === undefined && rounding === undefined) {
    result.granularity = "seconds";
    result.bucketMaxSpanSeconds = GRANULARITY.seconds.maxSpan;
  } else {
    if (maxSpan === undefined || rounding === undefined) {
      throw new MongoCommandError(
        "InvalidOptions",
        "Timeseries 'bucketMaxSpanSeconds' and 'bucketRoundingSeconds' need to be set alongside each other",
      );
    }
    if (maxSpan !== rounding)
      throw new MongoCommandError(
        "InvalidOptions",
        "Timeseries 'bucketRoundingSeconds' needs to be equal to 'bucketMaxSpanSeconds'",
      );
    result.bucketRoundingSeconds = rounding;
    result.bucketMaxSpanSeconds = maxSpan;
  }
  options.timeseries = result;
}

/** `expireAfterSeconds` of `create`: a non-negative whole number, on a time-series collection only here. */
export function createExpireAfterSeconds(options: Document): void {
  const value = options.expireAfterSeconds as unknown;
  if (value === undefined) return;
  if (options.timeseries === undefined) {
    throw new MongoCommandError(
      "InvalidOptions",
      "'expireAfterSeconds' is only supported on time-series collections or when the 'clusteredIndex' option is specified",
    );
  }
  if (typeof value !== "number" && typeof (value as { toNumber?: unknown })?.toNumber !== "function") {
    throw new MongoCommandError(
      "TypeMismatch",
      `BSON field 'create.expireAfterSeconds' is the wrong type '${typeName(value)}', expected types '[long, int, decimal, double]'`,
    );
  }
  const seconds = Number(value);
  if (seconds < 0)
    throw new MongoCommandError(
      "Location51024",
      `BSON field 'expireAfterSeconds' value must be >= 0, actual value '${seconds}'`,
    );
  options.expireAfterSeconds = Math.trunc(seconds);
}

/** The index MongoDB (6.3 and later) creates on `{metaField: 1, timeField: 1}` with the collection. */
export function metaTimeIndexKey(options: TimeseriesOptions): Document | undefined {
  return options.metaField === undefined ? undefined : { [options.metaField]: 1, [options.timeField]: 1 };
}

/** A measurement must carry a date in the time field. */
export function checkMeasurement(options: TimeseriesOptions, doc: Document): void {
  if (!(doc[options.timeField] instanceof Date)) {
    throw new MongoCommandError(
      "BadValue",
      `'${options.timeField}' must be present and contain a valid BSON UTC datetime value`,
    );
  }
}

/** Writes to a time-series collection are refused in a transaction (reads are allowed), as in MongoDB. */
export function refuseInTransaction(options: TimeseriesOptions | undefined, cmd: Document, verb: string): void {
  if (options && cmd.autocommit === false) {
    throw new MongoCommandError(
      "OperationNotSupportedInTransaction",
      `Cannot ${verb} a time-series collection in a multi-document transaction.`,
    );
  }
}

function topField(path: string): string {
  return path.split(".")[0];
}

/** Whether every field a filter reads is the metaField or inside it (MongoDB's `queryOnlyDependsOnMetaField`). */
function onlyMetaField(filter: unknown, metaField: string): boolean {
  if (!isPlainObject(filter)) return true;
  return Object.entries(filter).every(([key, value]) => {
    if (key === "$and" || key === "$or" || key === "$nor")
      return Array.isArray(value) && value.every((inner) => onlyMetaField(inner, metaField));
    if (key === "$comment") return true;
    if (key === "$expr") return expressionPaths(value).every((path) => topField(path) === metaField);
    if (key.startsWith("$")) return false;
    return topField(key) === metaField;
  });
}

/** The field paths an aggregation expression reads (`"$a.b"` reads `a.b`; `$$ROOT` reads everything). */
function expressionPaths(expression: unknown): string[] {
  if (typeof expression === "string") {
    if (expression.startsWith("$$"))
      return /^\$\$(ROOT|CURRENT)(\.|$)/.test(expression)
        ? [expression.replace(/^\$\$(ROOT|CURRENT)\.?/, "") || "$$ROOT"]
        : [];
    return expression.startsWith("$") ? [expression.slice(1)] : [];
  }
  if (Array.isArray(expression)) return expression.flatMap(expressionPaths);
  if (isPlainObject(expression))
    return Object.entries(expression).flatMap(([key, value]) => (key === "$literal" ? [] : expressionPaths(value)));
  return [];
}

/**
 * MongoDB 8's limits on an update of a time-series collection (`updateRequestCheckFunction` and
 * `translateUpdate`): multi, no upsert, a metaField, a filter on the metaField only, operators
 * that change the metaField only. Each is refused with MongoDB's code (72) and message.
 */
export function checkTimeseriesUpdate(
  options: TimeseriesOptions,
  statement: { q?: unknown; u: unknown; multi?: boolean; upsert?: boolean },
): void {
  const refuse = (message: string) => new MongoCommandError("InvalidOptions", message);
  if (statement.multi !== true) throw refuse("Cannot perform a non-multi update on a time-series collection");
  if (statement.upsert === true) throw refuse("Cannot perform an upsert on a time-series collection");
  const { metaField } = options;
  if (metaField === undefined)
    throw refuse("Cannot perform an update on a time-series collection that does not have a metaField");
  if (!onlyMetaField(statement.q ?? {}, metaField)) {
    throw refuse(
      `Cannot perform an update or delete on a time-series collection when querying on a field that is not the metaField '${metaField}'`,
    );
  }
  if (Array.isArray(statement.u))
    throw refuse("Cannot perform an update on a time-series collection using a pipeline update");
  const update = statement.u as Document;
  if (!Object.keys(update).some((key) => key.startsWith("$")))
    throw refuse("Cannot perform an update on a time-series collection using a replacement document");
  for (const [operator, fields] of Object.entries(update)) {
    if (!isPlainObject(fields)) continue;
    const paths = Object.keys(fields);
    if (operator === "$rename") paths.push(...Object.values(fields).filter((v): v is string => typeof v === "string"));
    if (paths.some((path) => topField(path) !== metaField)) {
      throw refuse(
        `Cannot perform an update on a time-series collection which updates a field that is not the metaField '${metaField}'`,
      );
    }
  }
}
