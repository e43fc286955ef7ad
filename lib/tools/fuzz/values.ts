/**
 * The values the API fuzzer (./fuzz.ts) sends, as a tiny JSON syntax tree rather than JavaScript
 * values: an object is a list of entries, so `__proto__` stays an own key and a key may repeat;
 * a raw fragment carries JSON text no `JSON.stringify` could make (thousands of levels of
 * nesting, `1e999`, a lone surrogate); an id is a reference to a record of one of the seeded
 * companies, resolved only when the request is sent, as records are created while the run goes.
 */

/**
 * Which records an id refers to, one pool each per company: the kinds the seeded world makes, and
 * any other the API creates (named after its path, `/v2/api-keys` → `apiKeys`), whose pool the
 * fuzzer fills with creates of its own.
 */
export const ID_KINDS = [
  "users",
  "surveys",
  "accessRoles",
  "jobTitles",
  "properties",
  "bots",
  "apiKeys",
  "companies",
  "questions",
] as const;
export type IdKind = (typeof ID_KINDS)[number] | (string & {});

/**
 * Where the fuzz run's webhooks point: a host it lists in `WEBHOOK_ALLOWED_HOSTS` (./fuzz.test.ts,
 * lib/tools/fuzz/cli.ts), on the discard port, as no delivery loop runs during it.
 */
export const FUZZ_WEBHOOK_HOST = "127.0.0.1";
export const FUZZ_WEBHOOK_ORIGIN = `http://${FUZZ_WEBHOOK_HOST}:9`;

/** A record id, picked from a pool when the request is built. */
export class IdRef {
  constructor(
    readonly kind: IdKind,
    /** Picks the pool entry (modulo its size). */
    readonly index: number,
    /** `own`: the acting company's record; `foreign`: the other company's; `unknown`: a valid id of nothing. */
    readonly owner: "own" | "foreign" | "unknown",
    /** An id in upper case is still the same id. */
    readonly upper = false,
  ) {}
}

/** JSON text sent as it is. */
export class Raw {
  constructor(
    readonly text: string,
    /** What it is, for the figures and counterexamples. */
    readonly label: string,
  ) {}
}

export class Obj {
  constructor(readonly entries: [string, Node][]) {}
}

export type Node = null | boolean | number | string | IdRef | Raw | Obj | Node[];

/** Turns a value into JSON text; ids are resolved by `id`. */
export function toJsonText(node: Node, id: (ref: IdRef) => string): string {
  if (node instanceof Raw) return node.text;
  if (node instanceof IdRef) return JSON.stringify(id(node));
  if (node instanceof Obj)
    return `{${node.entries.map(([key, value]) => `${JSON.stringify(key)}:${toJsonText(value, id)}`).join(",")}}`;
  if (Array.isArray(node)) return `[${node.map((item) => toJsonText(item, id)).join(",")}]`;
  // JSON.stringify writes NaN and Infinity as null: a number is always valid JSON here.
  return JSON.stringify(node);
}

/** Every id a value refers to. */
export function* idsOf(node: Node): Generator<IdRef> {
  if (node instanceof IdRef) yield node;
  else if (node instanceof Obj) for (const [, value] of node.entries) yield* idsOf(value);
  else if (Array.isArray(node)) for (const item of node) yield* idsOf(item);
}

/** The labels of the hostile fragments a value holds. */
export function* rawLabels(node: Node): Generator<string> {
  if (node instanceof Raw) yield node.label;
  else if (node instanceof Obj) for (const [, value] of node.entries) yield* rawLabels(value);
  else if (Array.isArray(node)) for (const item of node) yield* rawLabels(item);
}
