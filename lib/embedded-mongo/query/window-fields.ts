/**
 * MongoDB's `$setWindowFields`, computed by the server itself: mingo's own stage computes each
 * output through `$function`, server-side JavaScript the server never runs, so it could not run
 * at all. The stage is parsed before any document is read, with MongoDB 8's checks, codes and
 * messages (`document_source_set_window_fields.cpp`, `window_bounds.cpp`,
 * `window_function_expression.h`); then, as MongoDB desugars it, the documents are sorted by the
 * partition key and `sortBy` (in BSON order, under the operation's collation), cut into
 * partitions of equal keys, and each output is computed over its window of each partition.
 */
import type { Document } from "bson";
import { evalExpr } from "mingo/core";
import { Lazy, type Iterator } from "mingo/lazy";
import type { Options } from "mingo/types";
import { MongoCommandError } from "../errors";
import { numberTypeAt, setField, setNumberType } from "../storage/bson-values";
import { isPlainObject, ownField, valuesAtPath } from "../storage/keys";
import { compareCollated, type Collation } from "./collation";
import { checkFieldPath } from "./field-path";
import { counted, double, place, Sum, typedValue } from "./number-types";
import { readsDocument } from "./reads-document";
import { SCORE_FIELD } from "./text";

/** A refusal with MongoDB's code (FailedToParse, TypeMismatch, or a numbered one without a name). */
class WindowError extends MongoCommandError {
  constructor(code: number, message: string) {
    super("BadValue", message);
    const names: Record<number, string> = { 9: "FailedToParse", 14: "TypeMismatch", 115: "CommandNotSupported" };
    (this as { code: number }).code = code;
    (this as { codeName: string }).codeName = names[code] ?? "";
  }
}

const windowError = (code: number, message: string) => new WindowError(code, message);

const parseError = (message: string) => new WindowError(9, message);

type Bound = "unbounded" | "current" | number;
type TimeUnit = "year" | "quarter" | "month" | "week" | "day" | "hour" | "minute" | "second" | "millisecond";

interface Window {
  kind: "documents" | "range";
  lower: Bound;
  upper: Bound;
  unit?: TimeUnit;
}

interface SortField {
  path: string;
  dir: 1 | -1;
  /** `{$meta: "textScore"}` (an expression, not a field path). */
  meta: boolean;
}

const ACCUMULATORS = [
  "$sum",
  "$avg",
  "$min",
  "$max",
  "$push",
  "$addToSet",
  "$stdDevPop",
  "$stdDevSamp",
  "$covariancePop",
  "$covarianceSamp",
] as const;
type AccumulatorName = (typeof ACCUMULATORS)[number];

type WindowFunction =
  | { op: AccumulatorName | "$count" | "$first" | "$last"; input: unknown; window: Window }
  | { op: "$rank" | "$denseRank" | "$documentNumber" }
  | { op: "$shift"; output: unknown; by: number; fallback: unknown }
  | { op: "$derivative" | "$integral"; input: unknown; unitMs?: number; window: Window }
  | { op: "$expMovingAvg"; input: unknown; alpha: number }
  | { op: "$locf" | "$linearFill"; input: unknown };

interface Output {
  field: string;
  fn: WindowFunction;
}

export interface WindowSpec {
  /** Absent: one partition. */
  partitionBy?: { expr: unknown };
  sortBy?: SortField[];
  outputs: Output[];
}

/** MongoDB 8's window functions this server does not compute: refused, naming the way out. */
const UNSUPPORTED = new Set([
  "$bottom",
  "$bottomN",
  "$firstN",
  "$lastN",
  "$maxN",
  "$minN",
  "$top",
  "$topN",
  "$median",
  "$percentile",
]);

const SUPPORTED = new Set<string>([
  ...ACCUMULATORS,
  "$count",
  "$first",
  "$last",
  "$rank",
  "$denseRank",
  "$documentNumber",
  "$shift",
  "$derivative",
  "$integral",
  "$expMovingAvg",
  "$locf",
  "$linearFill",
]);

const isFunctionName = (name: string) => SUPPORTED.has(name) || UNSUPPORTED.has(name);

/** The BSON type name MongoDB's messages use. */
function typeName(v: unknown): string {
  if (v === undefined) return "missing";
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (v instanceof Date) return "date";
  if (v instanceof RegExp) return "regex";
  switch (typeof v) {
    case "number":
      return Number.isInteger(v) && Math.abs(v) < 2 ** 31 ? "int" : "double";
    case "string":
      return "string";
    case "boolean":
      return "bool";
    case "bigint":
      return "long";
  }
  const bson = (v as { _bsontype?: string })._bsontype;
  const names: Record<string, string> = {
    Long: "long",
    Decimal128: "decimal",
    ObjectId: "objectId",
    Binary: "binData",
    Timestamp: "timestamp",
    Code: "javascript",
    MinKey: "minKey",
    MaxKey: "maxKey",
  };
  if (bson) return names[bson] ?? bson;
  return isPlainObject(v) ? "object" : typeof v;
}

/** A value in a message (any value a client can send, never a crash). */
function shown(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

const bsonType = (v: unknown) => (v as { _bsontype?: string } | null | undefined)?._bsontype;

/** Whether a value is a BSON number (int, long, double, decimal). */
function isNumeric(v: unknown): boolean {
  if (typeof v === "number" || typeof v === "bigint") return true;
  const t = bsonType(v);
  return t === "Long" || t === "Decimal128" || t === "Int32" || t === "Double";
}

const isNullish = (v: unknown) => v === undefined || v === null;

/** A number as a JavaScript number (a decimal only where it chooses documents, never in a result). */
function toNumber(v: unknown): number {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  const t = bsonType(v);
  if (t === "Long") return (v as { toNumber(): number }).toNumber();
  if (t === "Int32" || t === "Double") return (v as { value: number }).value;
  return Number(String(v));
}

/** The number of an arithmetic window function; a decimal would lose its precision here, so it is refused. */
function arithmetic(v: unknown, op: string): number {
  if (bsonType(v) === "Decimal128")
    throw new WindowError(
      115,
      `Decimal128 values in ${op} of $setWindowFields are not supported by the embedded database: set MONGODB_URI to use a MongoDB server`,
    );
  return toNumber(v);
}

const TIME_UNITS: Record<TimeUnit, number> = {
  year: 365.2425 * 86400000,
  quarter: 91.3125 * 86400000,
  month: 30.436875 * 86400000,
  week: 7 * 86400000,
  day: 86400000,
  hour: 3600000,
  minute: 60000,
  second: 1000,
  millisecond: 1,
};

function parseTimeUnit(unit: string): TimeUnit {
  if (!Object.hasOwn(TIME_UNITS, unit)) throw parseError(`unknown time unit value: ${unit}`);
  return unit as TimeUnit;
}

/** `date` plus `amount` units, as `$dateAdd` in UTC (a month past the end of the next one ends on its last day). */
function addUnits(date: Date, unit: TimeUnit, amount: number): Date {
  const months = unit === "year" ? 12 * amount : unit === "quarter" ? 3 * amount : unit === "month" ? amount : 0;
  if (months === 0) return new Date(date.getTime() + amount * TIME_UNITS[unit]);
  const first = new Date(date.getTime());
  first.setUTCDate(1);
  first.setUTCMonth(first.getUTCMonth() + months);
  const last = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0)).getUTCDate();
  first.setUTCDate(Math.min(date.getUTCDate(), last));
  return first;
}

/** A compiled stage: its spec and a function turning a constant expression into its value. */
type Constant = (expr: unknown) => unknown;

/** Parses and checks a `$setWindowFields` stage as MongoDB 8 does, before any document is read. */
function parseWindowFields(arg: unknown, constant: Constant): WindowSpec {
  if (!isPlainObject(arg))
    throw parseError(`the $setWindowFields stage specification must be an object, found ${typeName(arg)}`);
  let partitionBy: WindowSpec["partitionBy"];
  let sortBy: SortField[] | undefined;
  let output: Document | undefined;
  for (const [key, value] of Object.entries(arg)) {
    if (key === "partitionBy") partitionBy = { expr: value };
    else if (key === "sortBy") {
      if (!isPlainObject(value))
        throw new WindowError(
          14,
          `BSON field '$setWindowFields.sortBy' is the wrong type '${typeName(value)}', expected type 'object'`,
        );
      sortBy = parseSortBy(value);
    } else if (key === "output") {
      if (!isPlainObject(value))
        throw new WindowError(
          14,
          `BSON field '$setWindowFields.output' is the wrong type '${typeName(value)}', expected type 'object'`,
        );
      output = value;
    } else throw new WindowError(40415, `BSON field '$setWindowFields.${key}' is an unknown field.`);
  }
  if (!output) throw new WindowError(40414, "BSON field '$setWindowFields.output' is missing but a required field");
  if (partitionBy && !readsDocument(partitionBy.expr) && Array.isArray(constant(partitionBy.expr)))
    throw new WindowError(14, "An expression used to partition cannot evaluate to value of type array");
  const fields = Object.keys(output);
  for (const a of fields)
    for (const b of fields)
      if (a !== b && (b.startsWith(`${a}.`) || a === b))
        throw new WindowError(6307900, "$setWindowFields 'output' specification contains two conflicting paths");
  const outputs = fields.map((field) => {
    const spec = output![field];
    if (!isPlainObject(spec)) throw parseError(`The field '${field}' must be an object`);
    return { field, fn: parseFunction(spec, sortBy, constant) };
  });
  for (const field of fields) checkFieldPath(field, windowError);
  return { partitionBy, sortBy, outputs };
}

/** `sortBy` as MongoDB's SortPattern reads it. */
function parseSortBy(spec: Document): SortField[] {
  return Object.entries(spec).map(([path, dir]): SortField => {
    // `{$meta: "textScore"}` after the aggregate command's rewrite of it (text.ts): the hidden score, highest first.
    if (dir === `$${SCORE_FIELD}`) return { path: SCORE_FIELD, dir: -1, meta: true };
    if (isPlainObject(dir)) {
      if (Object.keys(dir).length === 1 && dir.$meta === "textScore") return { path: SCORE_FIELD, dir: -1, meta: true };
      if (Object.hasOwn(dir, "$meta"))
        throw new WindowError(
          115,
          `sortBy {$meta: ${shown(dir.$meta)}} in $setWindowFields is not supported by the embedded database: set MONGODB_URI to use a MongoDB server`,
        );
      throw new WindowError(17312, "$meta is the only expression supported by $sort right now");
    }
    if (!isNumeric(dir)) throw new WindowError(15974, `Illegal key in $sort specification: ${path}: ${shown(dir)}`);
    const n = toNumber(dir);
    if (n !== 1 && n !== -1)
      throw new WindowError(15975, "$sort key ordering must be 1 (for ascending) or -1 (for descending)");
    return { path, dir: n, meta: false };
  });
}

function parseFunction(spec: Document, sortBy: SortField[] | undefined, constant: Constant): WindowFunction {
  const keys = Object.keys(spec);
  const name = keys.find((k) => k.startsWith("$"));
  if (name === undefined) throw parseError(`Expected a $-prefixed window function${keys.length ? `, ${keys[0]}` : ""}`);
  if (!isFunctionName(name)) throw parseError(`Unrecognized window function, ${name}`);
  if (UNSUPPORTED.has(name))
    throw new WindowError(
      115,
      `The window function ${name} is not supported by the embedded database: set MONGODB_URI to use a MongoDB server`,
    );
  switch (name) {
    case "$rank":
    case "$denseRank":
    case "$documentNumber": {
      if (keys.length !== 1) throw new WindowError(5371601, "Rank style window functions take no other arguments");
      const arg = spec[name];
      if (!isPlainObject(arg) || Object.keys(arg).length !== 0)
        throw new WindowError(5371603, `${name} must be specified with '{}' as the value`);
      if (!sortBy || sortBy.length !== 1)
        throw new WindowError(
          5371602,
          `${name} must be specified with a top level sortBy expression with exactly one element`,
        );
      return { op: name };
    }
    case "$first":
    case "$last": {
      let window: Window | undefined;
      for (const key of keys) {
        if (key === "window") window = parseWindow(spec.window, sortBy, constant);
        else if (key !== name) throw parseError(`${name} got unexpected argument: ${key}`);
      }
      return { op: name, input: spec[name], window: window ?? UNBOUNDED };
    }
    case "$shift":
      return parseShift(spec, sortBy, constant);
    case "$derivative":
    case "$integral":
      return parseWithUnit(name, spec, sortBy, constant);
    case "$expMovingAvg":
      return parseExpMovingAvg(spec, sortBy);
    case "$locf":
    case "$linearFill": {
      const input = singleFunction(spec, () => {});
      if (keys.includes("window")) throw parseError(`'window' field is not allowed in ${name}`);
      if (name === "$linearFill" && (!sortBy || sortBy.length !== 1))
        throw new WindowError(
          605001,
          "$linearFill must be specified with a top level sortBy expression with exactly one element",
        );
      return { op: name, input: input.value };
    }
    default: {
      let window = UNBOUNDED;
      const fn = singleFunction(spec, (key) => {
        if (key === "window") window = parseWindow(spec.window, sortBy, constant);
        else throw parseError(`Window function found an unknown argument: ${key}`);
      });
      if (fn.name === "$count") {
        if (!isPlainObject(fn.value) || Object.keys(fn.value).length !== 0)
          throw parseError("$count only accepts an empty object as input");
        return { op: "$count", input: 1, window };
      }
      return { op: fn.name as AccumulatorName, input: fn.value, window };
    }
  }
}

const UNBOUNDED: Window = { kind: "documents", lower: "unbounded", upper: "unbounded" };

/** The one window function of an output, other keys handed to `other` (in order). */
function singleFunction(spec: Document, other: (key: string) => void): { name: string; value: unknown } {
  let found: { name: string; value: unknown } | undefined;
  for (const key of Object.keys(spec)) {
    if (isFunctionName(key)) {
      if (found) throw parseError("Cannot specify two functions in window function spec");
      found = { name: key, value: spec[key] };
    } else if (key === "window") other(key);
    else throw parseError(`Window function found an unknown argument: ${key}`);
  }
  if (!found) throw parseError("Must specify a window function in output field");
  return found;
}

function parseShift(spec: Document, sortBy: SortField[] | undefined, constant: Constant): WindowFunction {
  let parsed: WindowFunction | undefined;
  for (const key of Object.keys(spec)) {
    if (key === "window") throw parseError("$shift does not accept a 'window' field");
    if (!isFunctionName(key)) throw parseError(`Window function found an unknown argument: ${key}`);
    if (parsed) throw parseError("Cannot specify multiple functions in window function spec");
    const args = spec[key];
    if (!isPlainObject(args)) throw parseError("Argument to $shift must be an object");
    let output: unknown;
    let hasOutput = false;
    let by: number | undefined;
    let fallback: unknown = null;
    for (const [arg, value] of Object.entries(args)) {
      if (arg === "output") {
        output = value;
        hasOutput = true;
      } else if (arg === "default") {
        if (readsDocument(value)) throw parseError("'$shift:default' expression must yield a constant value.");
        fallback = constant(value) ?? null;
      } else if (arg === "by") {
        const n = isNumeric(value) ? toNumber(value) : NaN;
        if (!Number.isInteger(n) || Math.abs(n) > 2 ** 31 - 1)
          throw parseError(`'$shift:by' field must be an integer, but found  by: ${shown(value)}`);
        by = n;
      } else throw parseError(`Unknown argument in ${key}`);
    }
    if (!hasOutput) throw parseError(`${key} requires an 'output' expression.`);
    if (by === undefined) throw parseError(`${key} requires 'by' as an integer value.`);
    parsed = { op: "$shift", output, by, fallback };
  }
  if (!sortBy) throw parseError("'$shift' requires a sortBy");
  return parsed!;
}

function parseWithUnit(
  name: "$derivative" | "$integral",
  spec: Document,
  sortBy: SortField[] | undefined,
  constant: Constant,
): WindowFunction {
  if (!sortBy) throw parseError(`${name} requires a sortBy`);
  if (sortBy.length !== 1) throw parseError(`${name} requires a non-compound sortBy`);
  if (sortBy[0].meta) throw parseError(`${name} requires a non-expression sortBy`);
  let window: Window | undefined;
  for (const key of Object.keys(spec)) {
    if (key === "window") window = parseWindow(spec.window, sortBy, constant);
    else if (key !== name) throw parseError(`${name} got unexpected argument: ${key}`);
  }
  const args = spec[name];
  if (!isPlainObject(args))
    throw parseError(`${name} expects an object, but got a ${typeName(args)}: ${name}: ${shown(args)}`);
  let input: unknown;
  let hasInput = false;
  let unitMs: number | undefined;
  for (const [arg, value] of Object.entries(args)) {
    if (arg === "input") {
      input = value;
      hasInput = true;
    } else if (arg === "unit") {
      if (typeof value !== "string") throw parseError(`unit' must be a string, but got ${typeName(value)}`);
      const unit = parseTimeUnit(value);
      if (unit === "year" || unit === "quarter" || unit === "month")
        throw new WindowError(5490710, "unit must be 'week' or smaller");
      unitMs = TIME_UNITS[unit];
    } else throw parseError(`${name} got unexpected argument: ${arg}`);
  }
  if (!hasInput) throw parseError(`${name} requires an 'input' expression`);
  if (name === "$derivative" && !window) throw parseError("$derivative requires explicit window bounds");
  return { op: name, input, unitMs, window: window ?? UNBOUNDED };
}

function parseExpMovingAvg(spec: Document, sortBy: SortField[] | undefined): WindowFunction {
  const args = spec.$expMovingAvg;
  if (Object.keys(spec).length !== 1 || !isPlainObject(args))
    throw parseError("$expMovingAvg must have exactly one argument that is an object");
  const shape =
    "$expMovingAvg sub object must have exactly two fields: An 'input' field, and either an 'N' field or an 'alpha' field";
  if (Object.keys(args).length !== 2 || !Object.hasOwn(args, "input")) throw parseError(shape);
  if (!sortBy) throw parseError("$expMovingAvg requires an explicit 'sortBy'");
  if (Object.hasOwn(args, "N")) {
    const n = args.N;
    if (!isNumeric(n)) throw parseError(`'N' field must be an integer, but found type ${typeName(n)}`);
    const value = toNumber(n);
    if (value !== Math.floor(value))
      throw parseError(
        `'N' field must be an integer, but found  N: ${value}. To use a non-integer, use the 'alpha' argument instead`,
      );
    if (value <= 0) throw parseError(`'N' must be greater than zero. Got ${value}`);
    return { op: "$expMovingAvg", input: args.input, alpha: 2 / (value + 1) };
  }
  if (Object.hasOwn(args, "alpha")) {
    if (!isNumeric(args.alpha)) throw parseError("'alpha' must be a number");
    const alpha = toNumber(args.alpha);
    if (!(alpha > 0 && alpha < 1))
      throw parseError(`'alpha' must be between 0 and 1 (exclusive), found alpha: ${alpha}`);
    return { op: "$expMovingAvg", input: args.input, alpha };
  }
  throw parseError(`Got unrecognized field in $expMovingAvg${shape}`);
}

/** `window: {documents: [...]}` or `{range: [...], unit}`, as MongoDB's WindowBounds::parse. */
function parseWindow(arg: unknown, sortBy: SortField[] | undefined, constant: Constant): Window {
  if (!isPlainObject(arg)) throw parseError("'window' field must be an object");
  const documents = arg.documents;
  const range = arg.range;
  const unit = arg.unit;
  const fields = Object.keys(arg).length;
  if (documents !== undefined && range !== undefined)
    throw parseError("Window bounds can specify either 'documents' or 'unit', not both.");
  if (range === undefined && unit !== undefined)
    throw parseError("Window bounds can only specify 'unit' with range-based bounds.");
  if (range === undefined && documents === undefined) {
    if (fields !== 0)
      throw parseError(
        "'window' field can only contain 'documents' as the only argument or 'range' with an optional 'unit' field",
      );
    return UNBOUNDED;
  }
  const unpack = (bounds: unknown): [unknown, unknown] => {
    if (!Array.isArray(bounds) || bounds.length !== 2)
      throw parseError(`Window bounds must be a 2-element array: ${shown(bounds)}`);
    return [bounds[0], bounds[1]];
  };
  const bound = (value: unknown, check: (n: unknown) => number): Bound => {
    if (typeof value === "string") {
      if (value === "unbounded" || value === "current") return value;
      throw parseError("Window bounds must be 'unbounded', 'current', or a number.");
    }
    if (readsDocument(value)) throw parseError("Window bounds expression must be a constant.");
    return check(constant(value));
  };
  const forward = (lower: Bound, upper: Bound) => {
    const n = (b: Bound) => (b === "current" ? 0 : b);
    const [l, u] = [n(lower), n(upper)];
    if (typeof l === "number" && typeof u === "number" && l > u)
      throw new WindowError(5339900, `Lower bound must not exceed upper bound: [${l}, ${u}]`);
  };
  if (documents !== undefined) {
    if (fields !== 1) throw parseError("'window' field that specifies documents cannot have other fields");
    const integer = (v: unknown) => {
      const n = isNumeric(v) ? toNumber(v) : NaN;
      if (!Number.isInteger(n)) throw parseError("Numeric document-based bounds must be an integer");
      return n;
    };
    const [l, u] = unpack(documents);
    const window: Window = { kind: "documents", lower: bound(l, integer), upper: bound(u, integer) };
    forward(window.lower, window.upper);
    if (!(window.lower === "unbounded" && window.upper === "unbounded") && !sortBy)
      throw new WindowError(5339901, "Document-based bounds require a sortBy");
    return window;
  }
  const [l, u] = unpack(range);
  let window: Window;
  if (unit !== undefined) {
    if (fields !== 2) throw parseError("'window' field that specifies unit cannot have other fields besides 'range'");
    if (typeof unit !== "string") throw parseError("'unit' must be a string");
    const integer = (v: unknown) => {
      const n = isNumeric(v) ? toNumber(v) : NaN;
      if (!Number.isInteger(n)) throw parseError("With 'unit', range-based bounds must be an integer");
      return n;
    };
    window = { kind: "range", lower: bound(l, integer), upper: bound(u, integer) };
    forward(window.lower, window.upper);
    window.unit = parseTimeUnit(unit);
  } else {
    if (fields !== 1) throw parseError("'window' field that specifies range cannot have other fields besides 'unit'");
    const number = (v: unknown) => {
      if (!isNumeric(v)) throw parseError("Range-based bounds expression must be a number");
      return toNumber(v);
    };
    window = { kind: "range", lower: bound(l, number), upper: bound(u, number) };
    forward(window.lower, window.upper);
  }
  if (!sortBy || sortBy.length !== 1)
    throw new WindowError(5339902, "Range-based bounds require sortBy a single field");
  if (sortBy[0].meta) throw new WindowError(8947400, "Range-based bounds require a non-expression sortBy");
  if (sortBy[0].dir !== 1) throw new WindowError(8947401, "Range-based bounds require an ascending sortBy");
  return window;
}

/** The value of a sort field MongoDB sorts a document by: an array by its smallest element ascending, its largest descending. */
function sortKey(doc: Document, field: SortField, compare: (a: unknown, b: unknown) => number): unknown {
  const { values } = valuesAtPath(doc, field.path);
  return values.reduce((best, v) => (compare(v, best) * field.dir < 0 ? v : best));
}

/**
 * The `$setWindowFields` stage for mingo's pipeline: `collationOf` finds the operation's
 * collation in mingo's options (collated-query.ts), which orders partitions, sorts, ranks,
 * `$min`/`$max` and `$addToSet`.
 */
export function windowFieldsStage(collationOf: (options: Options) => Collation | undefined) {
  return (coll: Iterator, expr: unknown, options: Options): Iterator => {
    const spec = parseWindowFields(expr, (e) => evalExpr({}, e, options));
    const collation = collationOf(options);
    return coll.transform((items: unknown[]) => Lazy(computeWindows(items as Document[], spec, options, collation)));
  };
}

function computeWindows(
  docs: Document[],
  spec: WindowSpec,
  options: Options,
  collation: Collation | undefined,
): Document[] {
  const compare = (a: unknown, b: unknown) => compareCollated(a, b, collation);
  const partitionOf = (doc: Document): unknown => {
    if (!spec.partitionBy) return null;
    const key = evalExpr(doc, spec.partitionBy.expr, options);
    if (Array.isArray(key))
      throw new WindowError(14, "An expression used to partition cannot evaluate to value of type array");
    return key ?? null;
  };
  const sortBy = spec.sortBy ?? [];
  const keyed = docs.map((doc) => ({
    doc,
    partition: partitionOf(doc),
    keys: sortBy.map((field) => sortKey(doc, field, compare)),
  }));
  if (spec.partitionBy || sortBy.length)
    keyed.sort((a, b) => {
      const p = compare(a.partition, b.partition);
      if (p !== 0) return p;
      for (let i = 0; i < sortBy.length; i++) {
        const c = compare(a.keys[i], b.keys[i]) * sortBy[i].dir;
        if (c !== 0) return c;
      }
      return 0;
    });
  const out: Document[] = [];
  let start = 0;
  while (start < keyed.length) {
    let end = start + 1;
    while (end < keyed.length && compare(keyed[end].partition, keyed[start].partition) === 0) end++;
    const partition = keyed.slice(start, end);
    const rows = partition.map((k) => k.doc);
    const results = spec.outputs.map(({ fn }) =>
      computeFunction(fn, {
        rows,
        rankKeys: partition.map((k) => k.keys[0]),
        sortField: sortBy[0],
        options,
        compare,
      }),
    );
    rows.forEach((doc, i) => {
      let result = doc;
      spec.outputs.forEach(({ field }, f) => {
        result = setPath(result, field.split("."), results[f][i]);
      });
      out.push(result);
    });
    start = end;
  }
  return out;
}

/** A copy of `doc` with the value at a dotted path set (or removed, when missing), as `$addFields` sets it. */
function setPath(doc: Document, parts: string[], value: unknown): Document {
  const copy: Document = {};
  for (const key of Object.keys(doc)) {
    setField(copy, key, doc[key]);
    setNumberType(copy, key, numberTypeAt(doc, key));
  }
  const [head, ...rest] = parts;
  if (rest.length === 0) {
    if (value === undefined) delete copy[head];
    else place(copy, head, value);
    return copy;
  }
  const inner = Object.hasOwn(doc, head) ? ownField(doc, head) : undefined;
  const into = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(into);
    return setPath(isPlainObject(v) ? v : {}, rest, value);
  };
  setField(copy, head, Array.isArray(inner) ? inner.map(into) : into(inner));
  return copy;
}

interface PartitionContext {
  rows: Document[];
  /** Each row's value of the (single) sortBy field, as sorted: what `$rank` compares. */
  rankKeys: unknown[];
  sortField: SortField | undefined;
  options: Options;
  compare: (a: unknown, b: unknown) => number;
}

/** Each row's result (undefined: the field is left out, as a missing value is). */
function computeFunction(fn: WindowFunction, ctx: PartitionContext): unknown[] {
  const { rows, options, compare } = ctx;
  const n = rows.length;
  const evaluate = (expr: unknown) => rows.map((doc) => typedValue(doc, expr, options));
  switch (fn.op) {
    case "$documentNumber":
      return rows.map((_, i) => i + 1);
    case "$rank":
    case "$denseRank": {
      const out: number[] = [];
      let rank = 0;
      ctx.rankKeys.forEach((key, i) => {
        const tie = i > 0 && compare(ctx.rankKeys[i - 1], key) === 0;
        if (!tie) rank = fn.op === "$rank" ? i + 1 : rank + 1;
        out.push(rank);
      });
      return out;
    }
    case "$shift":
      return rows.map((_, i) => {
        const j = i + fn.by;
        return j >= 0 && j < n ? typedValue(rows[j], fn.output, options) : fn.fallback;
      });
    case "$locf": {
      const values = evaluate(fn.input);
      let last: unknown = null;
      return values.map((v) => {
        if (!isNullish(v)) last = v;
        return last;
      });
    }
    case "$expMovingAvg": {
      let current: number | null = null;
      return evaluate(fn.input).map((v) => {
        if (isNumeric(v)) {
          const x = arithmetic(v, "$expMovingAvg");
          current = current === null ? x : x * fn.alpha + current * (1 - fn.alpha);
        }
        return double(current);
      });
    }
    case "$linearFill":
      // A value computed between two is a double; a value present is kept as it is.
      return linearFill(evaluate(fn.input), sortValues(ctx), compare).map((v) =>
        typeof v === "number" ? double(v) : v,
      );
  }
  const window = fn.window;
  const times = window.kind === "range" || fn.op === "$derivative" || fn.op === "$integral" ? sortValues(ctx) : [];
  const bounds = (i: number) => endpoints(window, i, n, times, compare);
  switch (fn.op) {
    case "$first":
    case "$last": {
      return rows.map((_, i) => {
        const w = bounds(i);
        if (!w) return null;
        return typedValue(rows[fn.op === "$first" ? w[0] : w[1]], fn.input, options);
      });
    }
    case "$derivative": {
      const values = evaluate(fn.input);
      return rows.map((_, i) => {
        const w = bounds(i);
        return w ? double(derivative(values, times, w, fn.unitMs)) : null;
      });
    }
    case "$integral": {
      const values = evaluate(fn.input);
      return rows.map((_, i) => {
        const w = bounds(i);
        return w ? double(integral(values, times, w, fn.unitMs)) : null;
      });
    }
  }
  const values = fn.op === "$count" ? rows.map(() => 1) : evaluate(fn.input);
  const accumulate = ACCUMULATE[fn.op];
  const running = RUNNING[fn.op];
  if (window.lower === "unbounded" && running) {
    // Every window starts at the same row: one pass answers them all (a running total, not a sum per row).
    const prefixes = new Map<number, unknown[]>();
    return rows.map((_, i) => {
      const w = bounds(i);
      if (!w) return accumulate([], compare);
      let prefix = prefixes.get(w[0]);
      if (!prefix) prefixes.set(w[0], (prefix = running(values.slice(w[0]), compare)));
      return prefix[w[1] - w[0]];
    });
  }
  return rows.map((_, i) => {
    const w = bounds(i);
    return accumulate(w ? values.slice(w[0], w[1] + 1) : [], compare);
  });
}

type Compare = (a: unknown, b: unknown) => number;

/** The accumulators that answer each prefix of their values in one pass, as ACCUMULATE would. */
const RUNNING: Partial<Record<AccumulatorName | "$count", (values: unknown[], compare: Compare) => unknown[]>> = {
  $count: (values) => values.map((_, k) => counted(k + 1)),
  $sum: (values) => {
    const sum = new Sum();
    return values.map((v) => {
      if (isNumeric(v)) sum.add(v, arithmetic(v, "$sum"));
      return sum.value();
    });
  },
  $avg: (values) => {
    let sum = 0;
    let count = 0;
    return values.map((v) => {
      if (isNumeric(v)) {
        sum += arithmetic(v, "$avg");
        count++;
      }
      return count ? double(sum / count) : null;
    });
  },
  $min: (values, compare) => {
    let best: unknown = null;
    return values.map((v) => (best = !isNullish(v) && (best === null || compare(v, best) < 0) ? v : best));
  },
  $max: (values, compare) => {
    let best: unknown = null;
    return values.map((v) => (best = !isNullish(v) && (best === null || compare(v, best) > 0) ? v : best));
  },
};

/** Each row's value of the sortBy field, as an expression reads it (an array stays whole). */
function sortValues(ctx: PartitionContext): unknown[] {
  const path = ctx.sortField?.path ?? "";
  return ctx.rows.map((doc) => evalExpr(doc, `$${path}`, ctx.options));
}

const numbers = (values: unknown[], op: string) => values.filter(isNumeric).map((v) => arithmetic(v, op));

/** The accumulators over a window's values, each with MongoDB's answer for an empty window. */
const ACCUMULATE: Record<
  AccumulatorName | "$count",
  (values: unknown[], compare: (a: unknown, b: unknown) => number) => unknown
> = {
  $count: (values) => counted(values.length),
  $sum: (values) => {
    const sum = new Sum();
    values.forEach((v) => {
      if (isNumeric(v)) sum.add(v, arithmetic(v, "$sum"));
    });
    return sum.value();
  },
  $avg: (values) => {
    const xs = numbers(values, "$avg");
    return xs.length ? double(xs.reduce((s, x) => s + x, 0) / xs.length) : null;
  },
  $min: (values, compare) =>
    values.filter((v) => !isNullish(v)).reduce<unknown>((m, v) => (m === null || compare(v, m) < 0 ? v : m), null),
  $max: (values, compare) =>
    values.filter((v) => !isNullish(v)).reduce<unknown>((m, v) => (m === null || compare(v, m) > 0 ? v : m), null),
  $push: (values) => values.filter((v) => v !== undefined),
  $addToSet: (values, compare) => {
    const sorted = values.filter((v) => v !== undefined).sort(compare);
    return sorted.filter((v, i) => i === 0 || compare(sorted[i - 1], v) !== 0);
  },
  $stdDevPop: (values) => double(stdDev(numbers(values, "$stdDevPop"), false)),
  $stdDevSamp: (values) => double(stdDev(numbers(values, "$stdDevSamp"), true)),
  $covariancePop: (values) => double(covariance(values, false)),
  $covarianceSamp: (values) => double(covariance(values, true)),
};

function stdDev(xs: number[], sample: boolean): number | null {
  const n = xs.length;
  if (n === 0 || (sample && n < 2)) return null;
  const mean = xs.reduce((s, x) => s + x, 0) / n;
  const squares = xs.reduce((s, x) => s + (x - mean) ** 2, 0);
  return Math.sqrt(squares / (sample ? n - 1 : n));
}

/** Covariance of the `[x, y]` pairs whose two values are numbers (others do not count, as in MongoDB). */
function covariance(values: unknown[], sample: boolean): number | null {
  const pairs = values
    .filter((v): v is unknown[] => Array.isArray(v) && v.length === 2 && isNumeric(v[0]) && isNumeric(v[1]))
    .map(([x, y]) => [arithmetic(x, "$covariance"), arithmetic(y, "$covariance")]);
  const n = pairs.length;
  if (n === 1 && !sample) return 0;
  if (n - (sample ? 1 : 0) <= 0) return null;
  const mx = pairs.reduce((s, [x]) => s + x, 0) / n;
  const my = pairs.reduce((s, [, y]) => s + y, 0) / n;
  return pairs.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0) / (sample ? n - 1 : n);
}

/** `b - a` for two numbers (or two dates, in milliseconds), as `$subtract`. */
function difference(b: unknown, a: unknown, op: string): number {
  if (a instanceof Date && b instanceof Date) return b.getTime() - a.getTime();
  if (isNumeric(a) && isNumeric(b)) return arithmetic(b, op) - arithmetic(a, op);
  throw new WindowError(14, `cant $subtract a ${typeName(a)} from a ${typeName(b)}`);
}

function derivative(values: unknown[], times: unknown[], [lo, hi]: [number, number], unitMs?: number): number | null {
  const [left, right] = [times[lo], times[hi]];
  if (unitMs !== undefined) {
    if (!(left instanceof Date && right instanceof Date))
      throw new WindowError(5624900, "$derivative with 'unit' expects the sortBy field to be a Date");
  } else {
    if (left instanceof Date || right instanceof Date)
      throw new WindowError(5624901, "$derivative where the sortBy is a Date requires an 'unit'");
    if (!isNumeric(left) || !isNumeric(right))
      throw new WindowError(5624902, "$derivative (with no 'unit') expects the sortBy field to be numeric");
  }
  const run = difference(right, left, "$derivative");
  if (isNullish(values[hi]) || isNullish(values[lo]))
    throw new WindowError(5624903, "$derivative input must not be null or missing");
  const rise = difference(values[hi], values[lo], "$derivative");
  // A window of one document (or of equal times) has no slope: MongoDB answers null, not an error.
  if (run === 0) return null;
  return unitMs !== undefined ? (rise / run) * unitMs : rise / run;
}

function integral(values: unknown[], times: unknown[], [lo, hi]: [number, number], unitMs?: number): number {
  let total = 0;
  let nan = false;
  for (let i = lo; i <= hi; i++) {
    const [x, y] = [times[i], values[i]];
    if (!isNumeric(y) || !(isNumeric(x) || x instanceof Date))
      throw new WindowError(
        5423900,
        "The input value of $integral window function must be a vector of 2 value, the first value must be numeric or date type and the second must be numeric.",
      );
    if (unitMs !== undefined && !(x instanceof Date))
      throw new WindowError(5423901, "$integral with 'outputUnit' expects the sortBy field to be a Date");
    if (unitMs === undefined && !isNumeric(x))
      throw new WindowError(5423902, "$integral (with no 'outputUnit') expects the sortBy field to be numeric");
    const yv = arithmetic(y, "$integral");
    if (Number.isNaN(yv) || (typeof x === "number" && Number.isNaN(x))) nan = true;
    if (i > lo) {
      const px = times[i - 1];
      const py = arithmetic(values[i - 1], "$integral");
      if (!Number.isNaN(py) && !Number.isNaN(yv)) total += (difference(x, px, "$integral") * (py + yv)) / 2;
    }
  }
  if (nan) return NaN;
  return unitMs !== undefined ? total / unitMs : total;
}

/** `$linearFill`, with MongoDB's checks of each document in order. */
function linearFill(values: unknown[], times: unknown[], compare: (a: unknown, b: unknown) => number): unknown[] {
  let lastTime: unknown;
  let previous: [unknown, unknown] | undefined;
  return values.map((value, i) => {
    if (!isNumeric(value) && !isNullish(value))
      throw new WindowError(14, `Value to be filled must be numeric or nullish, but found ${typeName(value)}`);
    const time = times[i];
    if (!isNumeric(time) && !(time instanceof Date))
      throw new WindowError(14, `Value of the sortBy field must be numeric or a date, but found ${typeName(time)}`);
    if (lastTime !== undefined) {
      if (compare(time, lastTime) === 0)
        throw new WindowError(6050106, "There can be no repeated values in the sort field");
      if (lastTime instanceof Date !== time instanceof Date)
        throw new WindowError(
          14,
          `Conflicting sort value types, previously received type ${typeName(lastTime)}, but found ${typeName(time)}`,
        );
    }
    lastTime = time;
    if (!isNullish(value)) {
      previous = [time, value];
      return value;
    }
    if (!previous) return null;
    let next: [unknown, unknown] | undefined;
    for (let j = i + 1; j < values.length && !next; j++)
      if (!isNullish(values[j]) && !isNullish(times[j])) next = [times[j], values[j]];
    if (!next) return null;
    const [x1, y1] = previous;
    const [x2, y2] = next;
    const slope = difference(y2, y1, "$linearFill") / difference(x2, x1, "$linearFill");
    return arithmetic(y1, "$linearFill") + difference(time, x1, "$linearFill") * slope;
  });
}

/**
 * The first and last row of row `i`'s window, or undefined when it holds none (MongoDB's
 * PartitionIterator: documents by offset; a range by the sortBy values, its `current` bound being
 * the current document itself).
 */
function endpoints(
  window: Window,
  i: number,
  n: number,
  times: unknown[],
  compare: (a: unknown, b: unknown) => number,
): [number, number] | undefined {
  if (window.kind === "documents") {
    const offset = (b: Bound) => (b === "current" ? 0 : b);
    const lower = offset(window.lower);
    const upper = offset(window.upper);
    if (typeof lower === "number" && lower > n - 1 - i) return undefined;
    if (typeof upper === "number" && upper < -i) return undefined;
    const clamp = (o: number) => Math.max(0, Math.min(n - 1, i + o));
    return [typeof lower === "number" ? clamp(lower) : 0, typeof upper === "number" ? clamp(upper) : n - 1];
  }
  const unit = window.unit;
  const base = times[i];
  if (unit) {
    if (!(base instanceof Date))
      throw new WindowError(
        5429513,
        `Invalid range: Expected the sortBy field to be a Date, but it was ${typeName(base)}`,
      );
  } else {
    if (base instanceof Date)
      throw new WindowError(
        5429413,
        "Invalid range: For windows that involve date or time ranges, a unit must be provided.",
      );
    if (!isNumeric(base))
      throw new WindowError(
        5429414,
        `Invalid range: Expected the sortBy field to be a number, but it was ${typeName(base)}`,
      );
  }
  const expected = (v: unknown) => (unit ? v instanceof Date : isNumeric(v));
  const threshold = (delta: number): unknown => (unit ? addUnits(base as Date, unit, delta) : toNumber(base) + delta);
  // When every value is of the expected type, the partition's sort put them in ascending order:
  // the first row past a threshold is found by halving (the same row the scan from the start finds).
  let sorted = allExpected.get(times);
  if (sorted === undefined) allExpected.set(times, (sorted = times.every(expected)));
  const firstFrom = (from: number, past: (v: unknown) => boolean): number => {
    if (sorted) {
      let [lo, hi] = [from, n];
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (past(times[mid])) hi = mid;
        else lo = mid + 1;
      }
      return lo;
    }
    let j = from;
    while (j < n && !past(times[j])) j++;
    return j;
  };
  let lower: number;
  if (window.lower === "current") lower = i;
  else if (window.lower === "unbounded") lower = sorted ? 0 : firstFrom(0, expected);
  else {
    const t = threshold(window.lower);
    lower = firstFrom(0, (v) => !(compare(v, t) < 0));
  }
  if (lower >= n) return undefined;
  let upper: number;
  if (window.upper === "current") upper = i;
  else if (window.upper === "unbounded")
    upper = sorted ? n - 1 : firstFrom(Math.max(i, lower), (v) => !expected(v)) - 1;
  else {
    const t = threshold(window.upper);
    const past = firstFrom(lower, (v) => compare(t, v) < 0);
    if (past === lower) return undefined;
    upper = past - 1;
  }
  if (upper < lower) return undefined;
  return [lower, upper];
}

/** Whether every sortBy value of a partition is of the range's type (per array of values). */
const allExpected = new WeakMap<unknown[], boolean>();

/**
 * MongoDB's `$fill`, as MongoDB defines it (`document_source_fill.cpp`): a `$setWindowFields` of
 * `$locf`/`$linearFill` for the outputs with a `method`, then `$ifNull` for those with a `value`.
 * mingo's own `$fill` runs through mingo's `$setWindowFields`, which the server refuses.
 */
export function fillStage(windowStage: ReturnType<typeof windowFieldsStage>) {
  return (coll: Iterator, expr: unknown, options: Options): Iterator => {
    const { window, values } = parseFill(expr);
    const filled = window ? windowStage(coll, window, options) : coll;
    if (values.length === 0) return filled;
    return filled.map((doc: Document) =>
      values.reduce(
        (out, [field, value]) =>
          setPath(out, field.split("."), evalExpr(doc, { $ifNull: [`$${field}`, value] }, options)),
        doc,
      ),
    );
  };
}

function parseFill(arg: unknown): { window?: Document; values: Array<[string, unknown]> } {
  if (!isPlainObject(arg)) throw parseError(`The $fill stage specification must be an object, found ${typeName(arg)}`);
  const wrongType = (field: string, value: unknown, expected: string) =>
    new WindowError(
      14,
      `BSON field '$fill.${field}' is the wrong type '${typeName(value)}', expected type '${expected}'`,
    );
  for (const [key, value] of Object.entries(arg)) {
    if (key === "partitionBy") {
      if (typeof value !== "string" && !isPlainObject(value)) throw wrongType(key, value, "string, object");
    } else if (key === "partitionByFields") {
      if (!Array.isArray(value)) throw wrongType(key, value, "array");
      for (const name of value) {
        if (typeof name !== "string") throw wrongType(key, name, "string");
        checkFieldPath(name, windowError);
      }
    } else if (key === "sortBy") {
      if (!isPlainObject(value)) throw wrongType(key, value, "object");
    } else if (key === "output") {
      if (!isPlainObject(value)) throw wrongType(key, value, "object");
    } else throw new WindowError(40415, `BSON field '$fill.${key}' is an unknown field.`);
  }
  const output = arg.output as Document | undefined;
  if (!output) throw new WindowError(40414, "BSON field '$fill.output' is missing but a required field");
  if (Object.keys(output).length === 0)
    throw new WindowError(6050203, "The output field in '$fill' must contain an object with at least one element");
  const methods: Document = {};
  const values: Array<[string, unknown]> = [];
  for (const [field, spec] of Object.entries(output)) {
    if (!isPlainObject(spec))
      throw new WindowError(6050200, "Each fill output specification must be an object with exactly one field");
    for (const [key, value] of Object.entries(spec)) {
      if (key === "method" && typeof value !== "string") throw wrongType(key, value, "string");
      if (key !== "method" && key !== "value")
        throw new WindowError(40415, `BSON field '$fill.${key}' is an unknown field.`);
    }
    if (Object.hasOwn(spec, "method")) {
      if (Object.hasOwn(spec, "value"))
        throw new WindowError(
          6050201,
          "Each fill output specification must have exactly one of 'method' or 'value' fields, not both",
        );
      if (spec.method !== "locf" && spec.method !== "linear")
        throw new WindowError(6050202, "Method must be either locf or linear");
      setField(methods, field, { [spec.method === "linear" ? "$linearFill" : "$locf"]: `$${field}` });
    }
    if (Object.hasOwn(spec, "value")) values.push([field, spec.value]);
  }
  if (arg.partitionBy !== undefined && arg.partitionByFields !== undefined)
    throw new WindowError(6050204, "Maximum one of 'partitionBy' and 'partitionByFields can be specified in '$fill'");
  const partitionBy =
    arg.partitionByFields !== undefined
      ? Object.fromEntries((arg.partitionByFields as string[]).map((name) => [name, `$${name}`]))
      : arg.partitionBy;
  const window =
    Object.keys(methods).length === 0
      ? undefined
      : {
          output: methods,
          ...(arg.sortBy !== undefined ? { sortBy: arg.sortBy } : {}),
          ...(partitionBy !== undefined ? { partitionBy } : {}),
        };
  return { window, values };
}
