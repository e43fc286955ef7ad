/**
 * `$regexMatch`, `$regexFind` and `$regexFindAll` as MongoDB 8 evaluates them: options read as
 * PCRE reads them (`i m s u x`, compiled as a stored regular expression is: `StoredRegExp`), any
 * other flag refused, MongoDB's codes for each malformed argument, match positions counted in code
 * points, and `$regexFindAll` searching on from the end of each match in the whole input (so `^`
 * and look-behinds keep their meaning). mingo's own operators pass the options to JavaScript as
 * flags (`x` refused, `g`, `y`, `d` accepted) and search a shrinking copy of the input.
 */
import { evalExpr } from "mingo/core";
import type { Options } from "mingo/types";
import { MongoCommandError } from "../errors";
import { StoredRegExp } from "../storage/bson-values";
import { isPlainObject } from "../storage/keys";

type Name = "$regexMatch" | "$regexFind" | "$regexFindAll";

/** A refusal with MongoDB's code, kept here rather than in errors.ts's shared table (as window-fields.ts does). */
class RegexError extends MongoCommandError {
  constructor(code: number, message: string) {
    super("BadValue", message);
    (this as { code: number }).code = code;
    (this as { codeName: string }).codeName = "";
  }
}

/** The options MongoDB's PCRE takes (`u` is accepted and changes nothing). */
const FLAGS = "imsux";

interface RegexArguments {
  input: unknown;
  regex: unknown;
  options?: unknown;
}

/** The operator's named arguments, checked as MongoDB parses them. */
function parseArguments(name: Name, spec: unknown): RegexArguments {
  if (!isPlainObject(spec))
    throw new RegexError(51103, `${name} expects an object of named arguments but found: ${typeName(spec)}`);
  for (const key of Object.keys(spec))
    if (key !== "input" && key !== "regex" && key !== "options")
      throw new RegexError(31024, `${name} found an unknown argument: ${key}`);
  if (!Object.hasOwn(spec, "input")) throw new RegexError(31022, `${name} requires 'input' parameter`);
  if (!Object.hasOwn(spec, "regex")) throw new RegexError(31023, `${name} requires 'regex' parameter`);
  return spec as RegexArguments;
}

/** MongoDB's name of a value's type, for the messages. */
function typeName(v: unknown): string {
  if (v === null) return "null";
  if (v === undefined) return "missing";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) && Math.abs(v) < 2 ** 31 ? "int" : "double";
  if (typeof v === "boolean") return "bool";
  if (v instanceof RegExp) return "regex";
  return typeof v === "object" ? "object" : typeof v;
}

const nullish = (v: unknown) => v === null || v === undefined;
const bsonType = (v: unknown) => (v as { _bsontype?: string } | null | undefined)?._bsontype;

/** A regular expression value's pattern and options (a stored one keeps them exactly). */
function regexParts(value: unknown): { pattern: string; options: string } | undefined {
  if (value instanceof StoredRegExp) return { pattern: value.pattern, options: value.options };
  if (value instanceof RegExp) return { pattern: value.source, options: value.flags };
  if (bsonType(value) === "BSONRegExp") return value as { pattern: string; options: string };
  return undefined;
}

/** The compiled pattern, or undefined when the regex is null or missing (MongoDB's extractRegexAndOptions and compile). */
function compile(name: Name, regex: unknown, options: unknown): RegExp | undefined {
  const parts = regexParts(regex);
  if (!nullish(regex) && typeof regex !== "string" && !parts)
    throw new RegexError(51105, `${name} needs 'regex' to be of type string or regex`);
  if (!nullish(options) && typeof options !== "string")
    throw new RegexError(51106, `${name} needs 'options' to be of type string`);
  let pattern: string | undefined;
  let flags = "";
  if (parts) {
    if (!nullish(options) && parts.options !== "")
      throw new RegexError(51107, `${name}: found regex option(s) specified in both 'regex' and 'option' fields`);
    pattern = parts.pattern;
    flags = parts.options;
  } else if (typeof regex === "string") pattern = regex;
  if (typeof options === "string") flags = options;
  if (pattern?.includes("\0"))
    throw new RegexError(51109, `${name}: regular expression cannot contain an embedded null byte`);
  if (flags.includes("\0"))
    throw new RegexError(51110, `${name}: regular expression options cannot contain an embedded null byte`);
  if (pattern === undefined) return undefined;
  const bad = [...flags].find((c) => !FLAGS.includes(c));
  if (bad) throw new RegexError(51108, `${name} invalid flag in regex options: ${bad}`);
  try {
    const stored = new StoredRegExp(pattern, flags);
    // Searched from a position in the whole input, as PCRE's start offset is.
    return new RegExp(stored.source, `${stored.flags}g`);
  } catch (err) {
    throw new RegexError(
      51111,
      // JavaScript compiles the pattern here: one PCRE reads (possessive quantifiers, inline options) may still be valid.
      `Invalid Regex in ${name}: ${err instanceof Error ? err.message : String(err)} (the embedded database reads patterns as JavaScript does: set MONGODB_URI to use a MongoDB server)`,
    );
  }
}

/** The input, or undefined when null or missing. */
function inputOf(name: Name, input: unknown): string | undefined {
  if (nullish(input)) return undefined;
  if (typeof input !== "string") throw new RegexError(51104, `${name} needs 'input' to be of type string`);
  return input;
}

/** The code points of `text` before the UTF-16 position `end`. */
function codePoints(text: string, from: number, end: number): number {
  let n = 0;
  for (let i = from; i < end; i++) {
    const c = text.charCodeAt(i);
    // A surrogate pair is one code point.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < end) i++;
    n++;
  }
  return n;
}

/** The UTF-16 length of the code point at `i`. */
function codePointLength(text: string, i: number): number {
  const c = text.charCodeAt(i);
  return c >= 0xd800 && c <= 0xdbff && i + 1 < text.length ? 2 : 1;
}

interface Match {
  match: string;
  idx: number;
  captures: (string | null)[];
}

/** The matches MongoDB's loop finds: one (`all` false) or each, not overlapping, an empty one moving on a code point. */
function search(re: RegExp, input: string, all: boolean): Match[] {
  const out: Match[] = [];
  let pos = 0;
  let counted = 0;
  let idx = 0;
  do {
    re.lastIndex = pos;
    const m = re.exec(input);
    if (!m) break;
    idx += codePoints(input, counted, m.index);
    counted = m.index;
    out.push({ match: m[0], idx, captures: m.slice(1).map((c) => c ?? null) });
    if (!all) break;
    if (m[0] === "") {
      if (m.index >= input.length) break;
      pos = m.index + codePointLength(input, m.index);
    } else pos = m.index + m[0].length;
    idx += codePoints(input, counted, pos);
    counted = pos;
  } while (pos < input.length);
  return out;
}

function operator(name: Name) {
  return (obj: unknown, spec: unknown, options: Options): unknown => {
    const args = parseArguments(name, spec);
    const re = compile(name, evalExpr(obj, args.regex, options), evalExpr(obj, args.options ?? null, options));
    const input = inputOf(name, evalExpr(obj, args.input, options));
    if (re === undefined || input === undefined)
      return name === "$regexMatch" ? false : name === "$regexFind" ? null : [];
    const found = search(re, input, name === "$regexFindAll");
    if (name === "$regexMatch") return found.length > 0;
    if (name === "$regexFind") return found[0] ?? null;
    return found;
  };
}

/** Whether an argument is a constant, which MongoDB compiles when it parses the pipeline. */
const isConstant = (v: unknown) =>
  nullish(v) || regexParts(v) !== undefined || (typeof v === "string" ? !v.startsWith("$") : typeof v !== "object");

/**
 * Refuses, before any document is read, a malformed use of the three operators anywhere in a
 * stage, and a constant pattern or options MongoDB would refuse when parsing (so an empty
 * collection is refused too, as MongoDB refuses it).
 */
export function checkRegexExpressions(value: unknown, depth = 0): void {
  if (depth > 200) return;
  if (Array.isArray(value)) {
    for (const v of value) checkRegexExpressions(v, depth + 1);
    return;
  }
  if (!isPlainObject(value)) return;
  for (const key of Object.keys(value)) {
    if (key === "$literal") continue;
    const v = value[key];
    if (key === "$regexMatch" || key === "$regexFind" || key === "$regexFindAll") {
      const args = parseArguments(key, v);
      if (isConstant(args.regex) && isConstant(args.options)) compile(key, args.regex, args.options ?? null);
    }
    checkRegexExpressions(v, depth + 1);
  }
}

/** The three operators, for the server's expression contexts (collated-query.ts). */
export const regexExpressions = {
  $regexMatch: operator("$regexMatch"),
  $regexFind: operator("$regexFind"),
  $regexFindAll: operator("$regexFindAll"),
};
