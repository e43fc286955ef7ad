/**
 * MongoDB's find projection: inclusion or exclusion of (dotted) paths, `$slice`, `$elemMatch`
 * and the positional `arr.$`, with the fields of the result in the stored document's order.
 * A projection with aggregation expressions or literal values is left to mingo (`undefined`).
 */
import type { Document } from "bson";
import type { Options } from "mingo/types";
import { MongoCommandError } from "../errors";
import { numberTypeAt, setField, setNumberType } from "../storage/bson-values";
import { isPlainObject, ownField } from "../storage/keys";
import { compileFilter } from "./filter";

/**
 * The top-level fields a projection does nothing but remove (`{a: 0, b: false}`), or undefined
 * for any other projection. Such a find is answered from the stored bytes with those fields cut
 * out (bson-values.ts `withoutFields`): the same fields in the same order as projecting the
 * decoded document gives, with nothing decoded or encoded again.
 */
export function topLevelExclusions(projection: Document): Set<string> | undefined {
  const names = new Set<string>();
  for (const [name, value] of Object.entries(projection)) {
    if (value !== 0 && value !== false) return undefined;
    if (name === "" || name.startsWith("$") || name.includes(".")) return undefined;
    names.add(name);
  }
  return names.size > 0 ? names : undefined;
}

type Special =
  { kind: "slice"; skip: number; limit: number } | { kind: "elemMatch"; criteria: Document } | { kind: "positional" };

interface Parsed {
  /** True: only the listed paths (and `_id`) are kept; false: the listed paths are removed. */
  inclusion: boolean;
  paths: string[];
  excludeId: boolean;
  specials: Map<string, Special>;
}

const isFlag = (v: unknown) =>
  typeof v === "number" ||
  typeof v === "boolean" ||
  (isPlainObject(v) && (v as { _bsontype?: string })._bsontype !== undefined);

/** Flattens `{a: {b: 1}}` to `a.b`, sorts out the kinds of fields; undefined when mingo must do it. */
function parse(projection: Document): Parsed | undefined {
  const flags = new Map<string, boolean>();
  const specials = new Map<string, Special>();
  const visit = (spec: Document, prefix: string): boolean => {
    for (const [key, value] of Object.entries(spec)) {
      const path = prefix + key;
      if (key.endsWith(".$") || key === "$") {
        if (!truthy(value))
          throw new MongoCommandError("Location31395", "positional projection cannot be used with exclusion");
        specials.set(path.slice(0, -2), { kind: "positional" });
      } else if (isPlainObject(value) && "$slice" in value && Object.keys(value).length === 1) {
        specials.set(path, slice(value.$slice));
      } else if (isPlainObject(value) && "$elemMatch" in value && Object.keys(value).length === 1) {
        if (prefix || key.includes("."))
          throw new MongoCommandError("Location31275", "Cannot use $elemMatch projection on a nested field.");
        if (!isPlainObject(value.$elemMatch))
          throw new MongoCommandError("BadValue", "elemMatch: Invalid argument, object required.");
        specials.set(path, { kind: "elemMatch", criteria: value.$elemMatch });
      } else if (
        isPlainObject(value) &&
        !Object.keys(value).some((k) => k.startsWith("$")) &&
        Object.keys(value).length > 0
      ) {
        if (!visit(value, `${path}.`)) return false;
      } else if (isFlag(value)) {
        flags.set(path, truthy(value));
      } else {
        return false;
      }
    }
    return true;
  };
  if (!visit(projection, "")) return undefined;
  const excludeId = flags.get("_id") === false;
  const rest = [...flags].filter(([path]) => path !== "_id");
  const included = rest.filter(([, on]) => on).map(([p]) => p);
  const excluded = rest.filter(([, on]) => !on).map(([p]) => p);
  const positional = [...specials.values()].some((s) => s.kind === "positional");
  const elemMatch = [...specials.values()].some((s) => s.kind === "elemMatch");
  if (included.length && excluded.length) {
    throw new MongoCommandError("Location31254", `Cannot do exclusion on field ${excluded[0]} in inclusion projection`);
  }
  if (excluded.length && positional) {
    throw new MongoCommandError("Location31254", `Cannot do exclusion on field ${excluded[0]} in inclusion projection`);
  }
  // `{_id: 1}` alone, a positional or an `$elemMatch` field without exclusions make an inclusion;
  // `$slice` alone keeps the other fields.
  const inclusion =
    included.length > 0 ||
    positional ||
    (elemMatch && excluded.length === 0) ||
    (flags.get("_id") === true && excluded.length === 0);
  return { inclusion, paths: inclusion ? included : excluded, excludeId, specials };
}

function truthy(value: unknown): boolean {
  return typeof value === "boolean" ? value : Number(value) !== 0;
}

function slice(arg: unknown): Special {
  const int = (v: unknown) => typeof v === "number" && Number.isInteger(v);
  if (int(arg))
    return (arg as number) >= 0
      ? { kind: "slice", skip: 0, limit: arg as number }
      : { kind: "slice", skip: arg as number, limit: -(arg as number) };
  if (Array.isArray(arg) && arg.length === 2 && int(arg[0]) && int(arg[1])) {
    if ((arg[1] as number) <= 0)
      throw new MongoCommandError("Location28724", "Second argument to $slice must be a positive number");
    return { kind: "slice", skip: arg[0] as number, limit: arg[1] as number };
  }
  throw new MongoCommandError(
    "Location28667",
    "Invalid $slice syntax. The given syntax did not match the find() syntax because :: Location31273: $slice only supports numbers and [skip, limit] arrays",
  );
}

/** A tree of path parts: a leaf (true) keeps or drops the whole field. */
type Tree = Map<string, Tree | true>;

function treeOf(paths: string[]): Tree {
  const root: Tree = new Map();
  for (const path of paths) {
    let node = root;
    const parts = path.split(".");
    parts.forEach((part, i) => {
      if (i === parts.length - 1) node.set(part, true);
      else {
        let next = node.get(part);
        if (next === true) return;
        if (!next) node.set(part, (next = new Map()));
        node = next;
      }
    });
  }
  return root;
}

/** `from[key]` set on `out` with the BSON type noted for it (a long or an integral double stays one). */
function copyField(out: Document, key: string, from: Document): void {
  setField(out, key, from[key]);
  setNumberType(out, key, numberTypeAt(from, key));
}

/** The elements of `values` at `indexes`, each with its noted BSON type. */
function elementsAt(values: unknown[], indexes: number[]): unknown[] {
  const out = indexes.map((i) => values[i]);
  indexes.forEach((i, k) => setNumberType(out, String(k), numberTypeAt(values, String(i))));
  return out;
}

const range = (from: number, to: number) => Array.from({ length: Math.max(0, to - from) }, (_, k) => from + k);

function include(value: Document, tree: Tree): Document {
  const out: Document = {};
  for (const [key, v] of Object.entries(value)) {
    const node = tree.get(key);
    if (node === undefined) continue;
    if (node === true) copyField(out, key, value);
    else if (Array.isArray(v)) setField(out, key, includeArray(v, node));
    else if (isPlainObject(v)) setField(out, key, include(v, node));
  }
  return out;
}

function includeArray(values: unknown[], tree: Tree): unknown[] {
  const out: unknown[] = [];
  for (const v of values) {
    if (Array.isArray(v)) out.push(includeArray(v, tree));
    else if (isPlainObject(v)) out.push(include(v, tree));
  }
  return out;
}

function exclude(value: Document, tree: Tree): Document {
  const out: Document = {};
  for (const [key, v] of Object.entries(value)) {
    const node = tree.get(key);
    if (node === true) continue;
    if (node === undefined) copyField(out, key, value);
    else if (Array.isArray(v)) {
      const kept = elementsAt(v, range(0, v.length));
      v.forEach((el, i) => {
        if (isPlainObject(el)) kept[i] = exclude(el, node);
      });
      setField(out, key, kept);
    } else if (isPlainObject(v)) setField(out, key, exclude(v, node));
    else copyField(out, key, value);
  }
  return out;
}

/** Applies `fn` to the value at a dotted path, through arrays of documents. */
function mapAt(doc: Document, parts: string[], fn: (value: unknown) => unknown): void {
  const [head, ...rest] = parts;
  if (!(head in doc)) return;
  if (rest.length === 0) {
    doc[head] = fn(doc[head]);
    return;
  }
  const next = doc[head];
  if (Array.isArray(next)) for (const el of next) if (isPlainObject(el)) mapAt(el, rest, fn);
  if (isPlainObject(next)) mapAt(next, rest, fn);
}

function applySlice(value: unknown, { skip, limit }: { skip: number; limit: number }): unknown {
  if (!Array.isArray(value)) return value;
  const start = skip < 0 ? Math.max(0, value.length + skip) : Math.min(skip, value.length);
  return elementsAt(value, range(start, Math.min(value.length, start + limit)));
}

/** The first element of the array at `path` that matches the query's conditions on it. */
function positionalElement(doc: Document, path: string, filter: Document, options?: Partial<Options>): unknown[] {
  const values = path.split(".").reduce<unknown>((v, part) => (isPlainObject(v) ? ownField(v, part) : undefined), doc);
  const conditions = conditionsOn(filter, path);
  if (!Array.isArray(values) || conditions.length === 0) {
    throw new MongoCommandError(
      "Location51246",
      "Executor error during find command :: caused by :: positional operator '.$' couldn't find a matching element in the array",
    );
  }
  const queries = conditions.map(([key, cond]) => compileFilter({ [key]: cond }, options));
  const index = values.findIndex((el) => queries.every((q) => q.test(wrapAt(path, [el]))));
  if (index < 0) {
    throw new MongoCommandError(
      "Location51246",
      "Executor error during find command :: caused by :: positional operator '.$' couldn't find a matching element in the array",
    );
  }
  return elementsAt(values, [index]);
}

function wrapAt(path: string, value: unknown): Document {
  return path.split(".").reduceRight<unknown>((inner, part) => ({ [part]: inner }), value) as Document;
}

function conditionsOn(filter: Document, path: string): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  for (const [key, cond] of Object.entries(filter)) {
    if (key === "$and" && Array.isArray(cond))
      for (const sub of cond) if (isPlainObject(sub)) out.push(...conditionsOn(sub, path));
    if (key === path || key.startsWith(`${path}.`)) out.push([key, cond]);
  }
  return out;
}

export function projectFind(
  docs: Document[],
  projection: Document,
  filter: Document,
  options?: Partial<Options>,
): Document[] | undefined {
  const parsed = parse(projection);
  if (!parsed) return undefined;
  const { inclusion, paths, excludeId, specials } = parsed;
  const keep = [...paths];
  if (inclusion) for (const [path, s] of specials) if (s.kind !== "elemMatch") keep.push(path);
  if (inclusion && !excludeId) keep.push("_id");
  const tree = treeOf(keep);
  const elemMatches = [...specials].filter(([, s]) => s.kind === "elemMatch") as Array<
    [string, { kind: "elemMatch"; criteria: Document }]
  >;
  const matchers = new Map(
    elemMatches.map(([path, s]) => [path, compileFilter({ [path]: { $elemMatch: s.criteria } }, options)]),
  );
  return docs.map((doc) => {
    const out = inclusion ? include(doc, tree) : exclude(doc, tree);
    for (const [path, s] of specials) {
      if (s.kind === "slice") mapAt(out, path.split("."), (v) => applySlice(v, s));
      if (s.kind === "positional") {
        const element = positionalElement(doc, path, filter, options);
        mapAt(out, path.split("."), () => element);
      }
    }
    // As in MongoDB (4.4 on), an $elemMatch field comes after the other fields.
    for (const [path] of elemMatches) {
      delete out[path];
      const values = doc[path];
      if (!Array.isArray(values)) continue;
      const index = values.findIndex((el) => matchers.get(path)!.test({ [path]: [el] }));
      if (index >= 0) out[path] = elementsAt(values, [index]);
    }
    if (excludeId) delete out._id;
    return out;
  });
}
