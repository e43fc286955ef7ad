/**
 * Regular expressions in filters, as MongoDB's matcher reads them: `$regex` conditions with
 * `$options` compiled as PCRE reads them, and each pattern (a field's value, `$regex`, `$in`,
 * `$nin`, `$all`, `$not`) matching a string it finds or a stored regular expression of the same
 * pattern and options, as MongoDB's RegexMatchExpression does; `$eq`/`$ne` against a regular
 * expression compare it as a value only.
 */
import type { Document } from "bson";
import { OpType } from "mingo/core";
import type { Options } from "mingo/types";
import { MongoCommandError } from "../errors";
import { setField, StoredRegExp } from "../storage/bson-values";
import { anyReached, comparedInOrder, elementAlone, isOperatorCondition, negated } from "./document-order";

const isDocument = (v: unknown): v is Document =>
  v !== null && typeof v === "object" && !Array.isArray(v) && (v as { _bsontype?: string })._bsontype === undefined;

/**
 * The operand of a renamed regex condition. mingo copies a filter before compiling it and turns
 * each RegExp into a plain one, losing the pattern and options as given (a `StoredRegExp`'s); an
 * object of a class of its own is kept as it is (and no code reads it as a document).
 */
export class RegexOperand {
  readonly _bsontype = "RegexOperand";
  constructor(
    readonly values: readonly unknown[],
    /** The options as the filter gave them (`$options`), which an equal stored regex must have. */
    readonly options?: string,
  ) {}
}

/**
 * A filter whose regex conditions are renamed to this module's operators (`$regexOf`,
 * `$regexEq`, `$regexIn` ...), `$regex` with `$options` compiled as PCRE reads them (`s`, `x`:
 * see StoredRegExp); mingo would pass `$options` to JavaScript as flags, and test strings only.
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

const isRegexValue = (v: unknown) =>
  v instanceof RegExp || (v as { _bsontype?: string } | null)?._bsontype === "BSONRegExp";

/** The name of an operator, `…Element` inside an `$elemMatch` on the elements' own values. */
const named = (name: string, element: boolean) => (element ? `${name}Element` : name);

function conditionPatterns(cond: unknown, depth: number, element = false): unknown {
  if (cond instanceof RegExp) return { [named("$regexOf", element)]: new RegexOperand([asPattern(cond)]) };
  if (!isDocument(cond) || depth > 100) return cond;
  let changed = false;
  const renamed: Document = {};
  for (const op of Object.keys(cond)) {
    const value = cond[op];
    let key = op;
    let next = value;
    if (op === "$not") next = conditionPatterns(value, depth + 1, element);
    else if (op === "$elemMatch" && isDocument(value))
      next = isOperatorCondition(value) ? conditionPatterns(value, depth + 1, true) : withPatterns(value, depth + 1);
    else if ((op === "$eq" || op === "$ne") && isRegexValue(value)) {
      key = named(op === "$eq" ? "$regexEq" : "$regexNe", element);
      next = new RegexOperand([value]);
    } else if ((op === "$in" || op === "$nin") && Array.isArray(value) && value.some((v) => v instanceof RegExp)) {
      key = named(op === "$in" ? "$regexIn" : "$regexNin", element);
      next = new RegexOperand(value.map((v) => (v instanceof RegExp ? asPattern(v) : v)));
    } else if (op === "$all" && Array.isArray(value) && value.some((v) => v instanceof RegExp))
      next = value.map((v) => (v instanceof RegExp ? new RegexOperand([asPattern(v)]) : v));
    if (key !== op || next !== value) changed = true;
    setField(renamed, key, next);
  }
  const out = changed ? renamed : cond;
  if (!("$regex" in out)) return out;
  if (out.$options !== undefined && typeof out.$options !== "string") return out;
  const options = out.$options as string | undefined;
  if (options) checkFlags(options);
  let source = out.$regex;
  let pattern: RegExp;
  if (source instanceof RegExp && options === undefined) pattern = asPattern(source);
  else {
    if (source instanceof RegExp) {
      const own = source instanceof StoredRegExp ? source.options : source.flags;
      if (own && options) throw new MongoCommandError("Location51075", "options set in both $regex and $options");
      source = source instanceof StoredRegExp ? source.pattern : source.source;
    }
    if (typeof source !== "string") return out;
    try {
      pattern = new StoredRegExp(source, options ?? "");
    } catch {
      return out; // A pattern JavaScript cannot compile is left as it is, for mingo to refuse.
    }
  }
  const compiled: Document = {};
  for (const [op, value] of Object.entries(out)) {
    if (op === "$regex") setField(compiled, named("$regexOf", element), new RegexOperand([pattern], options));
    else if (op !== "$options") setField(compiled, op, value);
  }
  return compiled;
}

/** MongoDB's PCRE options (`pcre_util::flagsToOptions`): a stored regex may hold `l` too, a pattern may not. */
function checkFlags(options: string): void {
  const bad = [...options].find((c) => !"imsux".includes(c));
  if (bad) throw new MongoCommandError("Location51108", `invalid flag in regex options: ${bad}`);
}

/** A regular expression a filter uses as a pattern, its options checked as MongoDB compiles them. */
function asPattern(re: RegExp): RegExp {
  checkFlags(re instanceof StoredRegExp ? re.options : re.flags.replace(/[gyd]/g, ""));
  return re;
}

type Predicate = (doc: unknown) => boolean;
type QueryOperator = (selector: string, value: unknown, options: unknown) => Predicate;

/** A regular expression value's pattern and options, as stored (a `StoredRegExp` keeps them exactly). */
function regexParts(value: unknown): { pattern: string; options: string } | undefined {
  if (value instanceof StoredRegExp) return { pattern: value.pattern, options: value.options };
  if (value instanceof RegExp) return { pattern: value.source, options: value.flags };
  if ((value as { _bsontype?: string } | null)?._bsontype === "BSONRegExp")
    return value as unknown as { pattern: string; options: string };
  return undefined;
}

/** Whether a value is a regular expression of exactly this pattern and these options. */
function equalRegex(pattern: string, options: string): (v: unknown) => boolean {
  return (v) => {
    const parts = regexParts(v);
    return parts !== undefined && parts.pattern === pattern && parts.options === options;
  };
}

/** MongoDB's RegexMatchExpression: a string (or symbol) the pattern matches, or a stored regex equal to it. */
function patternTest(re: unknown, options?: string): (v: unknown) => boolean {
  const parts = regexParts(re)!;
  const equal = equalRegex(parts.pattern, options ?? parts.options);
  const test = re instanceof RegExp ? (s: string) => re.test(s) : () => false;
  return (v) => {
    if (typeof v === "string") return test(v);
    if ((v as { _bsontype?: string } | null)?._bsontype === "BSONSymbol")
      return test(String((v as { value: unknown }).value));
    return equal(v);
  };
}

const operandOf = (value: unknown): RegexOperand =>
  value instanceof RegexOperand ? value : new RegexOperand(Array.isArray(value) ? value : [value]);

function regexOperators(
  reach: (parts: string[], test: (value: unknown) => boolean) => Predicate,
  element: boolean,
): Record<string, QueryOperator> {
  const $regexOf: QueryOperator = (selector, value) => {
    const operand = operandOf(value);
    return reach(selector.split("."), patternTest(operand.values[0], operand.options));
  };
  const $regexEq: QueryOperator = (selector, value) => {
    const parts = regexParts(operandOf(value).values[0]);
    return parts ? reach(selector.split("."), equalRegex(parts.pattern, parts.options)) : () => false;
  };
  /** `$in` holding patterns: those tested here, the other values by the context's own `$in`. */
  const $regexIn: QueryOperator = (selector, value, options) => {
    const list = operandOf(value).values;
    const tests = list.filter((v) => v instanceof RegExp).map((re) => patternTest(re));
    const others = list.filter((v) => !(v instanceof RegExp));
    const name = others.some(comparedInOrder) ? named("$orderedIn", element) : "$in";
    const plainIn = others.length
      ? ((options as Options).context.getOperator(OpType.QUERY, name) as QueryOperator | null)
      : null;
    const byOthers = plainIn ? plainIn(selector, others, options) : () => false;
    const byPatterns = reach(selector.split("."), (v) => tests.some((test) => test(v)));
    return (doc) => byOthers(doc) || byPatterns(doc);
  };
  const ops: Record<string, QueryOperator> = {
    $regexOf,
    $regexEq,
    $regexNe: negated($regexEq),
    $regexIn,
    $regexNin: negated($regexIn),
  };
  return Object.fromEntries(Object.entries(ops).map(([name, op]) => [named(name, element), op]));
}

/** The operators the renamed conditions use (each with its `…Element` twin), for the query contexts. */
export const regexQueryOperators: Record<string, QueryOperator> = {
  ...regexOperators(anyReached, false),
  ...regexOperators(elementAlone, true),
};

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
