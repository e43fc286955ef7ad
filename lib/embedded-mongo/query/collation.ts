/**
 * MongoDB collations on `Intl.Collator` (Node's ICU, the library MongoDB itself uses). A spec is
 * checked as MongoDB checks it; an option value that `Intl.Collator` cannot express exactly
 * (strength 4 and 5, `caseLevel` above strength 1, `maxVariable: "space"`, a `backwards` other
 * than the locale's own) is refused with BadValue rather than approximated.
 */
import type { Document } from "bson";
import { MongoCommandError } from "../errors";
import {
  bsonType,
  compareValues,
  encodeValue,
  isPlainObject,
  Rank,
  type KeyPart,
  type KeyPrimitive,
} from "../storage/keys";

/** A non-simple collation: the full spec MongoDB reports, and a comparator of strings. */
export interface Collation {
  spec: Document;
  /** The locale as a BCP 47 tag (what Intl and mingo take). */
  tag: string;
  /** The spec as one string: two collations are the same when their keys are. */
  key: string;
  compare: (a: string, b: string) => number;
  /** A string that every string equal to `s` under this collation shares (see `bucketOf`). */
  bucket: (s: string) => string;
}

const FIELDS = new Set([
  "locale",
  "caseLevel",
  "caseFirst",
  "strength",
  "numericOrdering",
  "alternate",
  "maxVariable",
  "normalization",
  "backwards",
  "version",
]);
const ICU_VERSION = "57.1";

function refuse(message: string): never {
  throw new MongoCommandError("BadValue", message);
}

const UNSUPPORTED = "is not supported by the embedded database (set MONGODB_URI to use a MongoDB server)";

function show(doc: Document): string {
  const parts = Object.entries(doc).map(([k, v]) => `${k}: ${typeof v === "string" ? JSON.stringify(v) : String(v)}`);
  return `{ ${parts.join(", ")} }`;
}

/** MongoDB's locale names (`en_US`, `de@collation=phonebook`) as BCP 47 tags for Intl. */
function bcp47(locale: string): string | undefined {
  const [base, keyword] = locale.split("@");
  if (!/^[A-Za-z]{2,3}(_[A-Za-z0-9]{2,8})*$/.test(base)) return undefined;
  let tag = base.replace(/_/g, "-");
  if (keyword !== undefined) {
    const m = /^collation=([a-z]+)$/.exec(keyword);
    if (!m) return undefined;
    const names: Record<string, string> = {
      phonebook: "phonebk",
      traditional: "trad",
      dictionary: "dict",
      pinyin: "pinyin",
      stroke: "stroke",
      unihan: "unihan",
      zhuyin: "zhuyin",
      big5han: "big5han",
      gb2312han: "gb2312",
      search: "search",
      standard: "standard",
      compat: "compat",
      reformed: "reformed",
      eor: "eor",
      emoji: "emoji",
    };
    const co = names[m[1]];
    if (!co) return undefined;
    tag += `-u-co-${co}`;
  }
  return tag;
}

const collations = new Map<string, Collation>();

/**
 * The collation a command names (or undefined for `simple`, binary comparison), refusing what
 * MongoDB refuses and what Intl cannot express. `fallback` is the collection's default.
 */
export function parseCollation(raw: unknown, fallback?: Collation): Collation | undefined {
  if (raw === undefined || raw === null) return fallback;
  if (!isPlainObject(raw))
    refuse(
      `BSON field 'collation' is the wrong type '${Array.isArray(raw) ? "array" : typeof raw}', expected type 'object'`,
    );
  const doc = raw as Document;
  if (Object.keys(doc).length === 0) refuse("BSON field 'collation' is an empty object");
  for (const field of Object.keys(doc))
    if (!FIELDS.has(field)) refuse(`BSON field 'collation.${field}' is an unknown field`);
  if (doc.locale === undefined) refuse('Missing expected field "locale"');
  if (typeof doc.locale !== "string")
    refuse(`BSON field 'collation.locale' is the wrong type '${typeof doc.locale}', expected type 'string'`);
  if (doc.locale === "simple") {
    if (Object.keys(doc).length > 1)
      throw new MongoCommandError(
        "FailedToParse",
        `If locale=simple, no other fields should be present in: ${show(doc)}`,
      );
    return undefined;
  }
  const tag = bcp47(doc.locale);
  const supported = tag ? Intl.Collator.supportedLocalesOf([tag], { localeMatcher: "lookup" }) : [];
  if (!tag || supported.length === 0 || supported[0].split("-")[0] !== tag.split("-")[0])
    refuse(`Field 'locale' is invalid in: ${show(doc)}`);
  const bool = (field: string, dflt: boolean): boolean => {
    const v = doc[field];
    if (v === undefined) return dflt;
    if (typeof v !== "boolean")
      refuse(`BSON field 'collation.${field}' is the wrong type '${typeof v}', expected type 'bool'`);
    return v;
  };
  const oneOf = (field: string, allowed: string[], dflt: string): string => {
    const v = doc[field];
    if (v === undefined) return dflt;
    if (typeof v !== "string" || !allowed.includes(v))
      refuse(`Field '${field}' must be one of ${allowed.map((a) => `'${a}'`).join(", ")}. Got: ${String(v)}`);
    return v;
  };
  const rawStrength =
    doc.strength === undefined
      ? 3
      : Number(bsonType(doc.strength) ? (doc.strength as { valueOf(): number }).valueOf() : doc.strength);
  if (!Number.isInteger(rawStrength) || rawStrength < 1 || rawStrength > 5)
    refuse(`BSON field 'collation.strength' value must be >= 1 and <= 5, actual value '${String(doc.strength)}'`);
  const strength = rawStrength;
  const caseLevel = bool("caseLevel", false);
  // Unset options take the locale's own defaults, as MongoDB reads them from ICU (Danish sorts
  // capitals first, Thai ignores punctuation).
  const defaults = new Intl.Collator(tag).resolvedOptions();
  const caseFirst = oneOf(
    "caseFirst",
    ["upper", "lower", "off"],
    defaults.caseFirst === "upper" || defaults.caseFirst === "lower" ? defaults.caseFirst : "off",
  );
  const numericOrdering = bool("numericOrdering", defaults.numeric === true);
  const alternate = oneOf(
    "alternate",
    ["non-ignorable", "shifted"],
    defaults.ignorePunctuation ? "shifted" : "non-ignorable",
  );
  const maxVariable = oneOf("maxVariable", ["punct", "space"], "punct");
  const normalization = bool("normalization", false);
  const localeBackwards = defaults.locale.toLowerCase().startsWith("fr-ca");
  const backwards = bool("backwards", localeBackwards);
  if (doc.version !== undefined && doc.version !== ICU_VERSION) refuse(`Field 'version' is invalid in: ${show(doc)}`);

  if (strength > 3) refuse(`collation strength ${strength} (quaternary and identical) ${UNSUPPORTED}`);
  if (caseLevel && strength > 1) refuse(`collation caseLevel true with strength ${strength} ${UNSUPPORTED}`);
  if (alternate === "shifted" && maxVariable === "space") refuse(`collation maxVariable 'space' ${UNSUPPORTED}`);
  if (backwards !== localeBackwards)
    refuse(`collation backwards ${String(backwards)} for locale '${doc.locale}' ${UNSUPPORTED}`);

  const spec: Document = {
    locale: doc.locale,
    caseLevel,
    caseFirst,
    strength,
    numericOrdering,
    alternate,
    maxVariable,
    normalization,
    backwards,
    version: ICU_VERSION,
  };
  const key = JSON.stringify(spec);
  const cached = collations.get(key);
  if (cached) return cached;
  const collator = new Intl.Collator(tag, {
    usage: "sort",
    sensitivity: strength === 1 ? (caseLevel ? "case" : "base") : strength === 2 ? "accent" : "variant",
    caseFirst: (caseFirst === "off" ? "false" : caseFirst) as "upper" | "lower" | "false",
    numeric: numericOrdering,
    // ICU's "shifted" handling with its default maxVariable (punctuation and spaces).
    ignorePunctuation: alternate === "shifted",
  });
  const compare = (a: string, b: string) => collator.compare(a, b);
  const collation: Collation = { spec, tag: tag!, key, compare, bucket: bucketOf(compare, numericOrdering) };
  collations.set(key, collation);
  return collation;
}

/** The spec to store and report for an index or a collection: the full form, or none for simple. */
export function collationSpec(c: Collation | undefined): Document | undefined {
  return c ? { ...c.spec } : undefined;
}

export function sameCollation(a: Collation | undefined, b: Collation | undefined): boolean {
  return (a?.key ?? "") === (b?.key ?? "");
}

const MAX_BUCKET = 200;

/** Where every string outside the plain fast path is kept (see bucketOf). */
const SHARED_BUCKET = "";

/**
 * Index keys under a collation. Intl gives no sort keys, so a collated index stores for each
 * string a bucket that every equal string shares, and each candidate is checked with the collator.
 * A plain string (ASCII only) goes to its skeleton: lower-cased letters and digits, digit runs
 * without leading zeros under numericOrdering. Any other string goes to the shared bucket, since
 * the collator may equate it with a plain one of another skeleton (`æ` and `ae`). When the locale
 * equates plain strings of different skeletons (Hungarian `ccs` and `cscs`), every string shares
 * the one bucket. A lookup of a value reads its bucket and the shared one (all of them for a
 * string that is not plain).
 */
function bucketOf(compare: (a: string, b: string) => number, numeric: boolean): (s: string) => string {
  const skeleton = (s: string): string => {
    let t = s.toLowerCase().replace(/[^a-z0-9]/g, "");
    if (numeric) t = t.replace(/\d+/g, (run) => run.replace(/^0+(?=\d)/, ""));
    return t ? `=${t}` : "=";
  };
  const plainWorks = skeletonsAgree(compare, skeleton);
  return (s) => (plainWorks && isPlain(s) ? skeleton(s) : SHARED_BUCKET);
}

export function isPlain(s: string): boolean {
  return /^[\x20-\x7e]*$/.test(s);
}

/** Whether collator-equal plain strings share a skeleton, over short strings and known contractions. */
function skeletonsAgree(compare: (a: string, b: string) => number, skeleton: (s: string) => string): boolean {
  const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -._@";
  const probes: string[] = [...alphabet];
  for (const a of alphabet) for (const b of alphabet) probes.push(a + b);
  for (const s of [
    "ccs",
    "cscs",
    "ddz",
    "dzdz",
    "ddzs",
    "dzsdzs",
    "ggy",
    "gygy",
    "lly",
    "lyly",
    "nny",
    "nyny",
    "ssz",
    "szsz",
    "tty",
    "tyty",
    "zzs",
    "zszs",
    "aa",
    "ch",
    "ll",
    "rr",
    "dz",
    "dzs",
    "ij",
    "ae",
    "oe",
    "ue",
    "010",
    "10",
    "0010",
    "a01",
    "a1",
  ])
    probes.push(s);
  probes.sort(compare);
  for (let i = 1; i < probes.length; i++) {
    if (compare(probes[i - 1], probes[i]) === 0 && skeleton(probes[i - 1]) !== skeleton(probes[i])) return false;
  }
  return true;
}

/**
 * The index key part of a value under a collation: a string by its bucket; a sub-document or an
 * array (whose strings the collator may equate with others) by its type alone; anything else as
 * without a collation. Never exact: every candidate is checked against the real value.
 */
export function collatedEncoder(c: Collation): (value: unknown) => { part: KeyPart; exact: boolean } {
  return (value) => {
    const { part } = encodeValue(value);
    if (typeof value === "string" || bsonType(value) === "BSONSymbol") {
      // Cut as long strings are without a collation: equal strings still share the shorter bucket.
      const bucket = c.bucket(String(typeof value === "string" ? value : (value as { value: string }).value));
      return { part: [Rank.String, bucket.slice(0, MAX_BUCKET)], exact: false };
    }
    if (part[0] === Rank.Object || part[0] === Rank.Array) return { part: [part[0], SHARED_BUCKET], exact: false };
    return { part, exact: true };
  };
}

/**
 * The key prefixes to read to find every entry whose values may equal this key's under the
 * collation: the parts up to the first collated one, then its bucket and the shared one (a string
 * that is not plain, or a sub-document, can equal one in any bucket: the whole type is read).
 */
export function collatedProbes(key: KeyPrimitive[]): KeyPrimitive[][] {
  const prefix: KeyPrimitive[] = [];
  for (let i = 0; i + 1 < key.length; i += 2) {
    const [rank, value] = [key[i], key[i + 1]];
    if (rank === Rank.String)
      return value === SHARED_BUCKET
        ? [[...prefix, rank]]
        : [
            [...prefix, rank, value],
            [...prefix, rank, SHARED_BUCKET],
          ];
    if (rank === Rank.Object || rank === Rank.Array) return [[...prefix, rank]];
    prefix.push(rank, value);
  }
  return [prefix];
}

/** Two values equal under the collation: strings by the collator, the rest as `compareValues` (deep). */
export function collatedCompareEqual(a: unknown, b: unknown, c: Collation | undefined): boolean {
  return compareValues(a, b, c?.compare) === 0;
}

/** MongoDB's order of two values under a collation (strings by the collator, also inside documents and arrays). */
export function compareCollated(a: unknown, b: unknown, c: Collation | undefined): number {
  return compareValues(a, b, c?.compare);
}

/**
 * The collation of an operation on a collection: the one the command names, else the
 * collection's default (kept in full in its options), else simple.
 */
export function operationCollation(raw: unknown, meta: { options: Document } | undefined): Collation | undefined {
  const fallback = meta?.options.collation ? parseCollation(meta.options.collation) : undefined;
  return parseCollation(raw, fallback);
}

/**
 * Maps values to a representative of their class: the first string met of each set of strings
 * the collator calls equal (deep, through arrays and sub-documents).
 */
export function canonicalizer(c: Collation): (v: unknown) => unknown {
  const reps: string[] = [];
  const rep = (s: string): string => {
    let lo = 0;
    let hi = reps.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const cmp = c.compare(s, reps[mid]);
      if (cmp === 0) return reps[mid];
      if (cmp < 0) hi = mid;
      else lo = mid + 1;
    }
    reps.splice(lo, 0, s);
    return s;
  };
  return (v) => mapStrings(v, rep);
}

/** The value with each string (deep, through arrays and documents) replaced by `f` of it. */
export function mapStrings(v: unknown, f: (s: string) => string): unknown {
  if (typeof v === "string") return f(v);
  if (Array.isArray(v)) return v.map((x) => mapStrings(x, f));
  if (isPlainObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, mapStrings(x, f)]));
  return v;
}
