/** `$regex` conditions with `$options`, compiled as MongoDB's PCRE reads them. */
import type { Document } from "bson";
import { MongoCommandError } from "../errors";
import { setField, StoredRegExp } from "../storage/bson-values";

const isDocument = (v: unknown): v is Document =>
  v !== null && typeof v === "object" && !Array.isArray(v) && (v as { _bsontype?: string })._bsontype === undefined;

/**
 * A filter whose `{$regex: "...", $options: "..."}` conditions are compiled as MongoDB's PCRE
 * reads them (`s`, `x`: see StoredRegExp); mingo would pass `$options` to JavaScript as flags.
 * A part holding none is returned as it is (its noted number types kept).
 */
export function withPatterns(filter: unknown, depth = 0): unknown {
  if (!isDocument(filter) || depth > 100) return filter;
  return copyChanged(filter, (key, cond) => {
    if ((key === "$and" || key === "$or" || key === "$nor") && Array.isArray(cond)) {
      const parts = cond.map((sub) => withPatterns(sub, depth + 1));
      return parts.some((part, i) => part !== cond[i]) ? parts : cond;
    }
    return key.startsWith("$") ? cond : conditionPatterns(cond, depth + 1);
  });
}

function conditionPatterns(cond: unknown, depth: number): unknown {
  if (!isDocument(cond) || cond instanceof RegExp) return cond;
  const out = copyChanged(cond, (op, value) =>
    op === "$not" ? conditionPatterns(value, depth + 1) : op === "$elemMatch" ? withPatterns(value, depth + 1) : value,
  );
  if (out.$options !== undefined && typeof out.$options !== "string") return out;
  const options = out.$options as string | undefined;
  const bad = options && [...options].find((c) => !"ilmsux".includes(c));
  if (bad) throw new MongoCommandError("Location51108", `invalid flag in regex options: ${bad}`);
  let source = out.$regex;
  if (source instanceof RegExp) {
    if (options === undefined) return out;
    const own = source instanceof StoredRegExp ? source.options : source.flags;
    if (own && options) throw new MongoCommandError("Location51075", "options set in both $regex and $options");
    source = source instanceof StoredRegExp ? source.pattern : source.source;
  }
  if (typeof source !== "string") return out;
  let pattern: StoredRegExp;
  try {
    pattern = new StoredRegExp(source, options ?? "");
  } catch {
    return out; // A pattern JavaScript cannot compile is left as it is, for mingo to refuse.
  }
  const compiled: Document = {};
  for (const [op, value] of Object.entries(out))
    if (op !== "$options") setField(compiled, op, op === "$regex" ? pattern : value);
  return compiled;
}

/** `doc` with each field's value mapped, the same object when no value changed. */
function copyChanged(doc: Document, map: (key: string, value: unknown) => unknown): Document {
  let out: Document | undefined;
  const keys = Object.keys(doc);
  for (let i = 0; i < keys.length; i++) {
    const value = map(keys[i], doc[keys[i]]);
    if (value === doc[keys[i]] && !out) continue;
    if (!out) {
      out = {};
      for (let k = 0; k < i; k++) setField(out, keys[k], doc[keys[k]]);
    }
    setField(out, keys[i], value);
  }
  return out ?? doc;
}
