/**
 * Text indexes and `$text`, as MongoDB does them (text index version 3): one text index per
 * collection, field weights, `default_language` "english" (Porter2 stemming and stop words) or
 * "none", a per-document language field (`language_override`), `$search` terms, "phrases" and
 * -negations, `$caseSensitive`, `$diacriticSensitive`, and MongoDB's score. The index keeps no
 * entries of its own: a `$text` query reads the collection and scores each document, which gives
 * the same answers as MongoDB's index walk.
 */
import type { Document } from "bson";
import { MongoCommandError } from "../errors";
import type { IndexSpec } from "../storage/index-spec";
import { isPlainObject } from "../storage/keys";
import { ENGLISH_STOP_WORDS, stem } from "./stemmer";

const UNSUPPORTED_HINT = "is not supported by the embedded database: set MONGODB_URI to use a MongoDB server";

/** Languages MongoDB's text search knows, by name and by code, to the name. */
const LANGUAGES: Record<string, string> = {
  none: "none",
  danish: "danish",
  da: "danish",
  dutch: "dutch",
  nl: "dutch",
  english: "english",
  en: "english",
  finnish: "finnish",
  fi: "finnish",
  french: "french",
  fr: "french",
  german: "german",
  de: "german",
  hungarian: "hungarian",
  hu: "hungarian",
  italian: "italian",
  it: "italian",
  norwegian: "norwegian",
  nb: "norwegian",
  portuguese: "portuguese",
  pt: "portuguese",
  romanian: "romanian",
  ro: "romanian",
  russian: "russian",
  ru: "russian",
  spanish: "spanish",
  es: "spanish",
  swedish: "swedish",
  sv: "swedish",
  turkish: "turkish",
  tr: "turkish",
};
const IMPLEMENTED = new Set(["english", "none"]);
const MAX_WORD_WEIGHT = 1_000_000_000;

export function isTextIndex(index: IndexSpec): boolean {
  return index.key._fts === "text";
}

/** The language a text index or document names, checked: unknown ones are refused as MongoDB does. */
function language(name: string, refuse: (message: string) => never): string {
  const known = LANGUAGES[name.toLowerCase()];
  if (!known) refuse(`unsupported language: "${name}" for text index version 3`);
  if (!IMPLEMENTED.has(known)) refuse(`text search in language "${known}" ${UNSUPPORTED_HINT}`);
  return known;
}

function cannotCreate(message: string): never {
  throw new MongoCommandError("CannotCreateIndex", message);
}

/**
 * A `createIndexes` entry with "text" fields, normalised as MongoDB stores and lists it:
 * `key: {<prefix>, _fts: "text", _ftsx: 1, <suffix>}`, `weights` by field name,
 * `default_language`, `language_override`, `textIndexVersion: 3`.
 */
export function textIndexSpec(raw: Document): IndexSpec {
  const key = raw.key as Document;
  const pattern: Record<string, number | string> = {};
  const weights = new Map<string, number>();
  let textSeen = false;
  let textDone = false;
  for (const [field, dir] of Object.entries(key)) {
    if (dir === "text") {
      if (textDone) cannotCreate("'text' fields in index must all be adjacent");
      if (!textSeen) Object.assign(pattern, { _fts: "text", _ftsx: 1 });
      textSeen = true;
      weights.set(field, 1);
      continue;
    }
    if (textSeen) textDone = true;
    if (dir === "hashed" || (Number(dir) !== 1 && Number(dir) !== -1))
      cannotCreate("expected value 1 or -1 for non-text key in compound index");
    pattern[field] = Number(dir);
  }
  if (raw.weights !== undefined) {
    if (raw.weights === "$**") weights.set("$**", 1);
    else if (!isPlainObject(raw.weights)) cannotCreate("text index option 'weights' must be an object");
    else {
      for (const [field, w] of Object.entries(raw.weights)) {
        if (typeof w !== "number") cannotCreate("weight for text index needs numeric type");
        weights.set(field, Math.trunc(w));
      }
    }
  }
  for (const [field, w] of weights) {
    if (w <= 0 || w >= MAX_WORD_WEIGHT)
      cannotCreate(`text index weight must be in the exclusive interval (0,${MAX_WORD_WEIGHT}) but found: ${w}`);
    if (field !== "$**" && field.split(".").some((p) => p.startsWith("$")))
      cannotCreate("weight cannot have path component with $ prefix");
  }
  const defaultLanguage = raw.default_language ?? "english";
  if (typeof defaultLanguage !== "string") cannotCreate("default_language needs a string type");
  if (!LANGUAGES[defaultLanguage.toLowerCase()]) cannotCreate("default_language is not valid");
  language(defaultLanguage, cannotCreate);
  const override = raw.language_override ?? "language";
  if (typeof override !== "string") cannotCreate("language_override must be a string");
  if (raw.textIndexVersion !== undefined && raw.textIndexVersion !== 3)
    cannotCreate(`text index version ${String(raw.textIndexVersion)} ${UNSUPPORTED_HINT}`);
  const sorted = Object.fromEntries([...weights.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return {
    v: 2,
    key: pattern,
    name: String(raw.name),
    weights: sorted,
    default_language: defaultLanguage,
    language_override: override,
    textIndexVersion: 3,
  };
}

/** Refuses a document whose language field names a language MongoDB or this database cannot index. */
export function checkTextLanguage(index: IndexSpec, doc: Document): void {
  const value = doc[index.language_override ?? "language"];
  if (typeof value === "string") {
    language(value, (m) => {
      throw new MongoCommandError(
        "Location17262",
        m.startsWith("unsupported") ? `language override unsupported: ${value}` : m,
      );
    });
  }
}

// ---- tokens ----

interface Tokenizing {
  english: boolean;
  caseSensitive: boolean;
  diacriticSensitive: boolean;
}

function fold(text: string, t: Tokenizing): string {
  let out = t.caseSensitive ? text : text.toLowerCase();
  if (!t.diacriticSensitive) out = out.normalize("NFD").replace(/\p{M}/gu, "");
  return out;
}

/** The words of a text: runs of letters and digits (and, in English, apostrophes). */
function words(text: string, english: boolean): string[] {
  return text
    .split(english ? /[^\p{L}\p{N}\p{M}']+/u : /[^\p{L}\p{N}\p{M}]+/u)
    .filter((w) => w.length > 0 && w !== "'");
}

/** The index terms of a text: folded words, without stop words, stemmed. */
function terms(text: string, t: Tokenizing): string[] {
  const out: string[] = [];
  for (const word of words(fold(text, t), t.english)) {
    const lower = word.toLowerCase();
    if (t.english && ENGLISH_STOP_WORDS.has(lower)) continue;
    if (!t.english) {
      out.push(word);
      continue;
    }
    const stemmed = stem(lower);
    // Case-sensitive search keeps the word's own case on what the stemmer kept of it.
    out.push(word === lower ? stemmed : lower.startsWith(stemmed) ? word.slice(0, stemmed.length) : stemmed);
  }
  return out;
}

// ---- $search ----

export interface TextQuery {
  search: string;
  language?: string;
  caseSensitive: boolean;
  diacriticSensitive: boolean;
}

/** Parses the `$text` operand, refusing what MongoDB refuses. */
export function parseTextQuery(operand: unknown): TextQuery {
  if (!isPlainObject(operand)) throw new MongoCommandError("BadValue", "$text expects an object");
  for (const k of Object.keys(operand)) {
    if (!["$search", "$language", "$caseSensitive", "$diacriticSensitive"].includes(k))
      throw new MongoCommandError("BadValue", `extra fields in $text: ${k}`);
  }
  if (typeof operand.$search !== "string")
    throw new MongoCommandError("BadValue", "$search required and must be a string");
  if (operand.$language !== undefined && typeof operand.$language !== "string")
    throw new MongoCommandError("BadValue", "$language must be a string");
  for (const k of ["$caseSensitive", "$diacriticSensitive"]) {
    if (operand[k] !== undefined && typeof operand[k] !== "boolean")
      throw new MongoCommandError("BadValue", `${k} must be a boolean`);
  }
  return {
    search: operand.$search,
    language: operand.$language as string | undefined,
    caseSensitive: operand.$caseSensitive === true,
    diacriticSensitive: operand.$diacriticSensitive === true,
  };
}

interface ParsedSearch {
  positive: string[];
  negative: string[];
  phrases: string[];
  negatedPhrases: string[];
}

/** MongoDB's reading of a `$search` string: words, "phrases", and "-" negations up to the next space. */
function parseSearch(search: string, t: Tokenizing): ParsedSearch {
  const out: ParsedSearch = { positive: [], negative: [], phrases: [], negatedPhrases: [] };
  let inNegation = false;
  let inPhrase = false;
  let quoteAt = 0;
  let previousWhiteSpace = true;
  let i = 0;
  while (i < search.length) {
    const c = search[i];
    if (/\s/.test(c)) {
      previousWhiteSpace = true;
      i += 1;
      continue;
    }
    if (c === "-") {
      if (!inPhrase && previousWhiteSpace) inNegation = true;
      previousWhiteSpace = false;
      i += 1;
      continue;
    }
    if (c === '"') {
      if (inPhrase) {
        (inNegation ? out.negatedPhrases : out.phrases).push(search.slice(quoteAt + 1, i));
        inPhrase = false;
      } else {
        if (inNegation && previousWhiteSpace) inNegation = false;
        inPhrase = true;
        quoteAt = i;
      }
      previousWhiteSpace = false;
      i += 1;
      continue;
    }
    let j = i;
    while (j < search.length && !/\s/.test(search[j]) && search[j] !== "-" && search[j] !== '"') j += 1;
    const text = search.slice(i, j);
    if (!(inPhrase && inNegation)) {
      if (inNegation && previousWhiteSpace) inNegation = false;
      (inNegation ? out.negative : out.positive).push(...terms(text, t));
    }
    previousWhiteSpace = false;
    i = j;
  }
  out.positive = [...new Set(out.positive)];
  out.negative = [...new Set(out.negative)];
  return out;
}

// ---- documents ----

/** The strings a text index reads in a document, each with its weight. */
function weightedStrings(index: IndexSpec, doc: Document): Array<{ text: string; weight: number }> {
  const weights = index.weights ?? {};
  const out: Array<{ text: string; weight: number }> = [];
  const visit = (value: unknown, path: string, inherited: number | undefined) => {
    const weight = weights[path] ?? inherited;
    if (typeof value === "string") {
      if (weight !== undefined) out.push({ text: value, weight });
    } else if (Array.isArray(value)) {
      for (const v of value) visit(v, path, weight);
    } else if (isPlainObject(value)) {
      for (const [k, v] of Object.entries(value))
        visit(v, path ? `${path}.${k}` : k, "$**" in weights ? weights["$**"] : undefined);
    }
  };
  for (const [k, v] of Object.entries(doc)) visit(v, k, "$**" in weights ? weights["$**"] : undefined);
  return out;
}

/** MongoDB's score of each term of a document (FTSSpec::scoreDocument, text index version 3). */
function documentScores(strings: Array<{ text: string; weight: number }>, t: Tokenizing): Map<string, number> {
  const scores = new Map<string, number>();
  for (const { text, weight } of strings) {
    const seen = new Map<string, { exp: number; count: number; freq: number }>();
    let numTokens = 0;
    for (const term of terms(text, t)) {
      const data = seen.get(term) ?? { exp: 0, count: 0, freq: 0 };
      data.exp = data.exp ? data.exp * 2 : 1;
      data.count += 1;
      data.freq += 1 / data.exp;
      seen.set(term, data);
      numTokens += 1;
    }
    for (const [term, data] of seen) {
      const coeff = (0.5 * data.count) / numTokens + 0.5;
      const adjustment = text.length === term.length && text.toLowerCase() === term.toLowerCase() ? 1.1 : 1;
      scores.set(term, (scores.get(term) ?? 0) + weight * data.freq * coeff * adjustment);
    }
  }
  return scores;
}

/**
 * How many keys MongoDB's text index holds for `doc`: one per distinct term of the strings it
 * reads, in the document's language. The embedded index stores none, but `validate` reports them
 * in `keysPerIndex` as MongoDB does.
 */
export function textIndexKeyCount(index: IndexSpec, doc: Document): number {
  const override = index.language_override ?? "language";
  const fallback = LANGUAGES[String(index.default_language ?? "english").toLowerCase()] ?? "english";
  const docLanguage =
    typeof doc[override] === "string" ? (LANGUAGES[String(doc[override]).toLowerCase()] ?? fallback) : fallback;
  return documentScores(weightedStrings(index, doc), {
    english: docLanguage === "english",
    caseSensitive: false,
    diacriticSensitive: false,
  }).size;
}

/**
 * The matcher of one `$text` query over a collection's text index: the document's score when it
 * matches, undefined when it does not.
 */
export function textMatcher(index: IndexSpec, query: TextQuery): (doc: Document) => number | undefined {
  const refuse = (m: string): never => {
    throw new MongoCommandError("BadValue", m);
  };
  const queryLanguage = query.language !== undefined ? language(query.language, refuse) : undefined;
  const override = index.language_override ?? "language";
  const defaultLanguage = language(String(index.default_language ?? "english"), refuse);
  const tokenizing = (lang: string, sensitive: boolean): Tokenizing => ({
    english: lang === "english",
    caseSensitive: sensitive && query.caseSensitive,
    diacriticSensitive: sensitive && query.diacriticSensitive,
  });
  // The query is read in its $language, else in the index's default language; each document in its own.
  const searchLanguage = queryLanguage ?? defaultLanguage;
  const search = parseSearch(query.search, tokenizing(searchLanguage, false));
  const exact = parseSearch(query.search, tokenizing(searchLanguage, true));
  return (doc) => {
    const docLanguage =
      typeof doc[override] === "string"
        ? (LANGUAGES[String(doc[override]).toLowerCase()] ?? defaultLanguage)
        : defaultLanguage;
    if (search.positive.length === 0) return undefined;
    const strings = weightedStrings(index, doc);
    const scores = documentScores(strings, tokenizing(docLanguage, false));
    let score = 0;
    let found = false;
    for (const term of search.positive) {
      const s = scores.get(term);
      if (s !== undefined) {
        score += s;
        found = true;
      }
    }
    if (!found) return undefined;
    const sensitive = query.caseSensitive || query.diacriticSensitive;
    if (sensitive || search.negative.length) {
      const t = tokenizing(docLanguage, true);
      const docTerms = new Set(strings.flatMap(({ text }) => terms(text, t)));
      if (sensitive && !exact.positive.some((term) => docTerms.has(term))) return undefined;
      if ((sensitive ? exact : search).negative.some((term) => docTerms.has(term))) return undefined;
    }
    if (search.phrases.length || search.negatedPhrases.length) {
      const t = tokenizing(docLanguage, true);
      const texts = strings.map(({ text }) => fold(text, t));
      const contains = (phrase: string) => texts.some((text) => text.includes(fold(phrase, t)));
      if (!search.phrases.every(contains)) return undefined;
      if (search.negatedPhrases.some(contains)) return undefined;
    }
    return score;
  };
}

// ---- where $text may appear ----

/** A filter's `$text` operand and the rest of the filter, when it has one at the top level. */
export function splitText(filter: Document): { text: unknown; rest: Document } | undefined {
  if ("$text" in filter) {
    const { $text: text, ...rest } = filter;
    return { text, rest };
  }
  if (Array.isArray(filter.$and)) {
    const index = (filter.$and as unknown[]).findIndex((c) => isPlainObject(c) && "$text" in c);
    if (index >= 0) {
      const clause = filter.$and[index] as Document;
      const { $text: text, ...restOfClause } = clause;
      const and = [...(filter.$and as Document[])];
      and.splice(index, 1, restOfClause);
      return { text, rest: { ...filter, $and: and } };
    }
  }
  return undefined;
}

/** The text index a `$text` query needs, refusing as MongoDB does when there is none. */
export function textIndexFor(indexes: IndexSpec[], rest: Document): IndexSpec {
  const index = indexes.find(isTextIndex);
  if (!index) throw new MongoCommandError("IndexNotFound", "text index required for $text query");
  // The fields before the text part of a compound text index need an equality in the query.
  for (const field of Object.keys(index.key)) {
    if (field === "_fts") break;
    const cond = rest[field];
    if (
      cond === undefined ||
      (isPlainObject(cond) && Object.keys(cond).some((k) => k.startsWith("$") && k !== "$eq"))
    ) {
      throw new MongoCommandError(
        "BadValue",
        `error processing query: planner returned error :: caused by :: failed to use text index to satisfy $text query (if text index is compound, are equality predicates given for all prefix fields?)`,
      );
    }
  }
  return index;
}

/** `{$meta: "textScore"}` */
export function isTextScoreMeta(value: unknown): boolean {
  return isPlainObject(value) && Object.keys(value).length === 1 && value.$meta === "textScore";
}

/** The text score of documents found by a `$text` query, for `{$meta: "textScore"}`. */
export const textScores = new WeakMap<Document, number>();

/** A hidden field that carries the score through an aggregation pipeline. */
export const SCORE_FIELD = "__embeddedTextScore";

/** Rewrites `{$meta: "textScore"}` in a pipeline into a reference to the hidden score field. */
export function rewriteMeta(value: unknown, inSort = false): unknown {
  if (isTextScoreMeta(value)) return inSort ? -1 : `$${SCORE_FIELD}`;
  if (Array.isArray(value)) return value.map((v) => rewriteMeta(v));
  if (!isPlainObject(value)) return value;
  const out: Document = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === "$sort" && isPlainObject(v)) {
      const sort: Document = {};
      for (const [field, dir] of Object.entries(v)) {
        if (isTextScoreMeta(dir)) sort[SCORE_FIELD] = -1;
        else sort[field] = dir;
      }
      out[k] = sort;
    } else if (k === "$project" && isPlainObject(v) && isInclusion(v)) {
      // The score stays available to later stages, as MongoDB keeps a document's metadata.
      out[k] = { ...(rewriteMeta(v) as Document), [SCORE_FIELD]: 1 };
    } else out[k] = rewriteMeta(v);
  }
  return out;
}

function isInclusion(projection: Document): boolean {
  return Object.entries(projection).some(([k, v]) => k !== "_id" && v !== 0 && v !== false);
}

/** Adds the `{$meta: "textScore"}` fields of a find projection to projected documents. */
export function splitMetaProjection(projection: Document | undefined): { rest: Document | undefined; meta: string[] } {
  if (!projection) return { rest: projection, meta: [] };
  const meta = Object.keys(projection).filter((k) => isTextScoreMeta(projection[k]));
  if (meta.length === 0) return { rest: projection, meta };
  const rest = { ...projection };
  for (const k of meta) delete rest[k];
  return { rest, meta };
}
