/**
 * fast-check arbitraries of the API fuzzer (./fuzz.ts), derived from the JSON Schema of the
 * OpenAPI document (the subset the zod conversion writes: type, properties, required,
 * additionalProperties, items, min/max, lengths, pattern, format, enum, const, anyOf, allOf,
 * $ref), in three kinds:
 *
 * - `valid`: what the schema accepts, ids taken from the seeded companies' records, so that
 *   success paths run;
 * - `invalid`: a valid value with one place broken (a wrong type, a bound crossed, a pattern
 *   missed, a required field left out, an unknown field added);
 * - hostile values an attacker sends anywhere: deep nesting, huge and odd numbers, control
 *   characters and NUL, lone surrogates, `$`-keys, `__proto__`/`constructor` keys, huge strings.
 */
import type { JsonSchema } from "@/lib/platform/openapi/schema";
import fc from "fast-check";
import { FUZZ_WEBHOOK_ORIGIN, type IdKind, IdRef, idsOf, type Node, Obj, Raw } from "./values";

/** Deepest nesting generated: far beyond the 64 levels a body may have (docs/api.md#text-fields). */
const MAX_DEPTH = 20_000;

const OBJECT_ID_PATTERN = "^[0-9a-fA-F]{24}$";

/** Which records an id-valued field or parameter names, by its name. */
const KIND_OF_NAME: Record<string, IdKind> = {
  accessRoles: "accessRoles",
  accessRole: "accessRoles",
  permissions: "accessRoles",
  groupPermissions: "accessRoles",
  properties: "properties",
  property: "properties",
  propertiesChannel: "properties",
  propertiesLimit: "properties",
  job: "jobTitles",
  bot: "bots",
  responders: "users",
  boss: "users",
  peers: "users",
  subordinate: "users",
  relatedUser: "users",
  id: "users",
  companyId: "companies",
  question: "questions",
};

const kindOfName = (name: string | undefined): IdKind => (name && KIND_OF_NAME[name]) || "users";

// ---------------------------------------------------------------------------------------------
// Ids

/**
 * An id of one of the acting company's newest records of the kind (`index` counts from the
 * newest): few enough choices that a list of them is unique when its indexes are, and new records
 * are soon named. Sometimes written in upper case, which names the same record.
 */
const validId = (kind: IdKind): fc.Arbitrary<IdRef> =>
  fc.tuple(fc.nat({ max: 3 }), fc.nat({ max: 5 })).map(([index, upper]) => new IdRef(kind, index, "own", upper === 0));

/** The id in a path: any of the acting company's records of the kind. */
export const validPathId = (kind: IdKind): fc.Arbitrary<IdRef> =>
  fc.tuple(fc.nat(), fc.nat({ max: 5 })).map(([index, upper]) => new IdRef(kind, index, "own", upper === 0));

/** A well-formed id of no record. */
const unknownId = (kind: IdKind): fc.Arbitrary<IdRef> => fc.nat().map((index) => new IdRef(kind, index, "unknown"));

/** The other company's record. */
const foreignId = (kind: IdKind): fc.Arbitrary<IdRef> => fc.nat().map((index) => new IdRef(kind, index, "foreign"));

/** Strings that are almost, or not at all, ids. */
export const malformedId: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "",
    "0",
    "null",
    "undefined",
    "[object Object]",
    "me",
    "$ne",
    '{"$ne":null}',
    "../../etc/passwd",
    "%00",
    "\u0000",
    "000000000000000000000000\u0000",
    "000000000000000000000000 ",
    " 000000000000000000000000",
    "000000000000000000000000\n",
    "00000000000000000000000", // 23
    "0000000000000000000000000", // 25
    "zzzzzzzzzzzzzzzzzzzzzzzz",
    "０００００００００００００００００００００００", // full-width digits
    "0x0000000000000000000000",
    "-00000000000000000000000",
    "1e23",
    "NaN",
    "Infinity",
  ),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.stringMatching(/^[0-9a-fA-F]{1,23}$/),
  fc.stringMatching(/^[0-9a-fA-F]{25,40}$/),
  // A URL longer than Node's 16 KiB of headers never reaches a handler.
  fc.integer({ min: 1000, max: 15_000 }).map((n) => "a".repeat(n)),
);

// ---------------------------------------------------------------------------------------------
// Hostile values

const HUGE_NUMBERS = [
  "1e308",
  "-1e308",
  "1.7976931348623157e308",
  "1e309",
  "-1e309",
  "-0",
  "-0.0",
  "0e0",
  "18446744073709551616",
  "-18446744073709551617",
  "9007199254740993",
  "4294967296",
  "2147483648",
  "1e-400",
  "5e-324",
  "0.1",
  "-1",
  "1.5",
  "1E2",
  "123456789012345678901234567890123456789",
];

const NAN_LIKE = [
  "NaN",
  "-NaN",
  "Infinity",
  "-Infinity",
  "-0",
  "1e308",
  "1e309",
  "0x1F",
  "0b1",
  "1_000",
  " 1",
  "1 ",
  "+1",
  "１２",
  "٣",
  "",
  "null",
  "undefined",
  "true",
  "[]",
  "{}",
];

const CONTROL_CHARACTERS = [
  "\u0000",
  "a\u0000b",
  "\u0001\u0002\u0003",
  "\t",
  "\n\r",
  "\u001b[31mred\u001b[0m",
  "\u007f",
  "\u0085",
  "\u2028\u2029",
  "\ufeff",
  "\u202eevil",
  "\u200b",
  "\ufffd",
  "\ufffe\uffff",
  "😀",
  "e\u0301",
];

/** Lone surrogates: valid JSON escapes, but no Unicode text. */
const LONE_SURROGATES = ['"\\ud800"', '"a\\udfffb"', '"\\udbff\\udbff"'];

const DOLLAR_OBJECTS = [
  '{"$ne":null}',
  '{"$gt":""}',
  '{"$where":"sleep(1000) || true"}',
  '{"$regex":".*"}',
  '{"$expr":{"$eq":[1,1]}}',
  '{"$set":{"isAdmin":true}}',
  '{"a.b":1}',
  '{"$":1}',
  '{"":1}',
];

const PROTOTYPE_OBJECTS = [
  '{"__proto__":{"isAdmin":true}}',
  '{"constructor":{"prototype":{"isAdmin":true}}}',
  '{"prototype":{"isAdmin":true}}',
  '{"a":{"__proto__":{"polluted":1}}}',
  '[{"__proto__":null}]',
];

/** Keys an attacker tries: operators, dotted paths, prototype names, NUL, nothing, a lot. */
export const hostileKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "$ne",
    "$gt",
    "$where",
    "$set",
    "$",
    "a.b",
    ".",
    "\u0000",
    "a\u0000",
    "__proto__",
    "constructor",
    "prototype",
    "toString",
    "hasOwnProperty",
    "valueOf",
    "",
    " ",
    "_id",
    "__v",
    "😀",
  ),
  fc.integer({ min: 1000, max: 20_000 }).map((n) => "k".repeat(n)),
);

/** `depth` levels of arrays or objects around a number, as JSON text. */
const nested = (depth: number, kind: "array" | "object"): Raw => {
  const label = `${kind}s nested ${depth <= 100 ? "2–100" : depth <= 1000 ? "101–1000" : "over 1000"} levels`;
  return kind === "array"
    ? new Raw(`${"[".repeat(depth)}1${"]".repeat(depth)}`, label)
    : new Raw(`${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`, label);
};

export const deepNesting: fc.Arbitrary<Raw> = fc
  .tuple(
    fc.oneof(
      fc.integer({ min: 2, max: 100 }),
      fc.integer({ min: 101, max: Math.min(MAX_DEPTH, 1000) }),
      ...(MAX_DEPTH > 1000 ? [fc.integer({ min: 1001, max: MAX_DEPTH })] : []),
    ),
    fc.constantFrom("array" as const, "object" as const),
  )
  .map(([depth, kind]) => nested(depth, kind));

const raws = (texts: string[], label: string) =>
  fc.constantFrom(...texts).map((text) => new Raw(text, `${label} ${text.slice(0, 40)}`));

/** A hostile string, labelled for the figures. */
const labelled = (label: string, strings: fc.Arbitrary<string>) =>
  strings.map((text) => new Raw(JSON.stringify(text), label));

/** A huge string (up to beyond the 1 MiB body limit). */
const hugeString: fc.Arbitrary<string> = fc
  .oneof(
    { arbitrary: fc.integer({ min: 201, max: 20_000 }), weight: 8 },
    { arbitrary: fc.integer({ min: 20_001, max: 1_100_000 }), weight: 1 },
  )
  .chain((n) => fc.constantFrom("x", "é", "\u0000", "😀").map((unit) => unit.repeat(Math.ceil(n / unit.length))));

/** Hostile text for a query string or a header: long, but within what Node lets through (16 KiB). */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...CONTROL_CHARACTERS),
  fc.constantFrom(...NAN_LIKE),
  fc.constantFrom(
    "$ne",
    "$where",
    "a.b",
    "__proto__",
    "constructor",
    "<script>alert(1)</script>",
    "' OR 1=1 --",
    "${7*7}",
    "{{7*7}}",
    "../../etc/passwd",
  ),
  fc.string({ unit: "binary", maxLength: 30 }),
  fc.integer({ min: 201, max: 5000 }).map((n) => "é".repeat(n)),
);

/** Any value an attacker may put where a schema expects something else. */
const hostileValue: fc.Arbitrary<Node> = fc.oneof(
  { arbitrary: deepNesting, weight: 3 },
  { arbitrary: raws(HUGE_NUMBERS, "number"), weight: 3 },
  { arbitrary: raws(LONE_SURROGATES, "lone surrogate"), weight: 1 },
  { arbitrary: raws(DOLLAR_OBJECTS, "operator object"), weight: 2 },
  { arbitrary: raws(PROTOTYPE_OBJECTS, "prototype object"), weight: 2 },
  { arbitrary: labelled("control characters", fc.constantFrom(...CONTROL_CHARACTERS)), weight: 1 },
  { arbitrary: labelled("NaN-like string", fc.constantFrom(...NAN_LIKE)), weight: 1 },
  { arbitrary: labelled("huge string", hugeString), weight: 1 },
  { arbitrary: labelled("any string", fc.string({ unit: "binary", maxLength: 30 })), weight: 1 },
  {
    arbitrary: fc
      .constantFrom("null", "true", "false", "0", "-1", '""', "[]", "{}")
      .map((text) => new Raw(text, "wrong type")),
    weight: 2,
  },
  { arbitrary: fc.double().map((n) => new Raw(Number.isFinite(n) ? JSON.stringify(n) : "0", "any number")), weight: 1 },
);

// ---------------------------------------------------------------------------------------------
// Values derived from schemas

/** Plain JSON of a few levels with keys MongoDB can store: free-form data such as `extensions`. */
const plainJson: fc.Arbitrary<Node> = fc.letrec<{ value: Node }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom<Node>(null, true, false),
    fc.integer(),
    fc.string({ unit: "grapheme", maxLength: 20 }),
    fc.array(tie("value"), { maxLength: 3 }),
    fc
      .array(fc.tuple(fc.stringMatching(/^[a-zA-Z][\w-]{0,15}$/), tie("value")), { maxLength: 3 })
      .map((entries) => new Obj(uniqueEntries(entries))),
  ),
})).value;

function uniqueEntries(entries: [string, Node][]): [string, Node][] {
  const seen = new Set<string>();
  return entries.filter(([key]) => !seen.has(key) && seen.add(key));
}

type Type = "string" | "number" | "integer" | "boolean" | "null" | "array" | "object";

export class SchemaArbitraries {
  constructor(private readonly root: Record<string, unknown>) {}

  /** A value the schema accepts; `name` is the field's (ids are picked by it). */
  valid(schema: JsonSchema, name?: string): fc.Arbitrary<Node> {
    const s = this.flatten(schema);
    if ("const" in s) return fc.constant(s.const as Node);
    if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as Node[]));
    if (Array.isArray(s.anyOf)) return fc.oneof(...(s.anyOf as JsonSchema[]).map((branch) => this.valid(branch, name)));
    const types = typesOf(s);
    if (types.length === 0) return plainJson;
    return fc.oneof(...types.map((type) => this.validOfType(s, type, name)));
  }

  /** A value the schema refuses, broken in one place. */
  invalid(schema: JsonSchema, name?: string): fc.Arbitrary<Node> {
    const s = this.flatten(schema);
    const options: fc.Arbitrary<Node>[] = [wrongType(s)];
    if (Array.isArray(s.enum)) options.push(fc.constantFrom("", "TRUE", "1", "yes", "desc ", "all\u0000"));
    if (Array.isArray(s.anyOf)) {
      return fc.oneof(...options);
    }
    const types = typesOf(s);
    if (types.includes("string")) options.push(...this.invalidStrings(s, name));
    if (types.includes("integer") || types.includes("number"))
      options.push(...invalidNumbers(s, types.includes("integer")));
    if (types.includes("array")) options.push(...this.invalidArrays(s, name));
    if (types.includes("object")) options.push(...this.invalidObjects(s));
    return fc.oneof(...options);
  }

  /** A valid value with a hostile value at one place (or a hostile key added), at any depth. */
  hostile(schema: JsonSchema, name?: string): fc.Arbitrary<Node> {
    const s = this.flatten(schema);
    const types = typesOf(s);
    const properties = Object.keys((s.properties ?? {}) as Record<string, unknown>);
    const options: fc.Arbitrary<Node>[] = [hostileValue];
    if (types.includes("object") && properties.length > 0) {
      options.push(
        fc
          .constantFrom(...properties)
          .chain((key) => fc.tuple(fc.constant(key), this.valid(s, name), this.hostile(this.property(s, key), key)))
          .map(([key, value, bad]) => replaceEntry(value, key, bad)),
        fc.tuple(this.valid(s, name), hostileKey, hostileValue).map(([value, key, bad]) => addEntry(value, key, bad)),
      );
    }
    if (types.includes("array") && s.items) {
      options.push(
        fc
          .tuple(this.valid(s, name), this.hostile(s.items as JsonSchema, name), fc.nat())
          .map(([value, bad, at]) => (Array.isArray(value) ? value.toSpliced(at % (value.length + 1), 0, bad) : [bad])),
      );
    }
    return fc.oneof(...options);
  }

  /** A schema with `$ref` resolved and `allOf` merged into it. */
  flatten(schema: JsonSchema): JsonSchema {
    let s = schema;
    for (let hops = 0; typeof s.$ref === "string" && hops < 20; hops++) {
      const { $ref, ...rest } = s;
      s = { ...this.resolve($ref as string), ...rest };
    }
    if (Array.isArray(s.allOf)) {
      const { allOf, ...rest } = s;
      s = (allOf as JsonSchema[]).reduce((merged, part) => merge(merged, this.flatten(part)), rest as JsonSchema);
    }
    return s;
  }

  property(schema: JsonSchema, key: string): JsonSchema {
    return ((schema.properties ?? {}) as Record<string, JsonSchema>)[key] ?? {};
  }

  private resolve(ref: string): JsonSchema {
    if (!ref.startsWith("#/")) throw new Error(`Only local $refs are followed: ${ref}`);
    let node: unknown = this.root;
    for (const part of ref.slice(2).split("/"))
      node = (node as Record<string, unknown>)[part.replace(/~1/g, "/").replace(/~0/g, "~")];
    if (!node || typeof node !== "object") throw new Error(`Unresolved $ref ${ref}`);
    return node as JsonSchema;
  }

  private validOfType(s: JsonSchema, type: Type, name: string | undefined): fc.Arbitrary<Node> {
    switch (type) {
      case "string":
        return validString(s, name);
      case "integer":
      case "number": {
        const min = typeof s.minimum === "number" ? s.minimum : -1_000_000;
        const max = typeof s.maximum === "number" ? s.maximum : 1_000_000;
        return type === "integer"
          ? fc.integer({ min, max })
          : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
      }
      case "boolean":
        return fc.boolean();
      case "null":
        return fc.constant(null);
      case "array": {
        const minLength = typeof s.minItems === "number" ? s.minItems : 0;
        const maxLength = Math.max(minLength, Math.min(typeof s.maxItems === "number" ? s.maxItems : 4, 4));
        // Unique by the record named, as the service refuses some lists naming one twice.
        return fc.uniqueArray(this.valid((s.items ?? {}) as JsonSchema, name), {
          minLength,
          maxLength,
          selector: uniqueKey,
        });
      }
      case "object":
        return this.validObject(s);
    }
  }

  private validObject(s: JsonSchema): fc.Arbitrary<Node> {
    const properties = Object.entries((s.properties ?? {}) as Record<string, JsonSchema>);
    if (properties.length === 0) {
      // Free-form (`additionalProperties: true`): plain data, its own keys.
      return s.additionalProperties === false
        ? fc.constant(new Obj([]))
        : plainJson.map((value) => (value instanceof Obj ? value : new Obj([["value", value]])));
    }
    const required = new Set((s.required ?? []) as string[]);
    const parts = properties.map(([key, schema]): fc.Arbitrary<[string, Node][]> => {
      const entry = this.valid(schema, key).map((value): [string, Node][] => [[key, value]]);
      if (required.has(key)) return entry;
      // A field the service sets (its schema only says so) is sent rarely: it is only ignored.
      const weight = isOnlyDescribed(schema) ? 1 : 4;
      return fc.oneof({ arbitrary: fc.constant<[string, Node][]>([]), weight: 12 }, { arbitrary: entry, weight });
    });
    return fc.tuple(...parts).map((lists) => new Obj(lists.flat()));
  }

  private invalidStrings(s: JsonSchema, name: string | undefined): fc.Arbitrary<Node>[] {
    const options: fc.Arbitrary<Node>[] = [];
    if (typeof s.maxLength === "number") {
      const max = s.maxLength;
      options.push(fc.integer({ min: max + 1, max: max + 50 }).map((n) => "a".repeat(n)));
    }
    if (typeof s.minLength === "number" && s.minLength > 0) options.push(fc.constant("".padEnd(s.minLength - 1, "a")));
    if (s.pattern === OBJECT_ID_PATTERN)
      options.push(malformedId, unknownId(kindOfName(name)), foreignId(kindOfName(name)));
    else if (typeof s.pattern === "string") {
      const pattern = new RegExp(s.pattern);
      options.push(fc.string({ unit: "binary", minLength: 1, maxLength: 30 }).filter((text) => !pattern.test(text)));
    }
    if (s.format === "email")
      options.push(fc.constantFrom("no-at-sign", "a@", "@b.c", "a b@c.d", 'quo"te@x.y', "a@b@c", "x@\u0000.io"));
    if (s.format === "date-time")
      options.push(
        fc.constantFrom(
          "2026-13-01T00:00:00Z",
          "2026-02-30T00:00:00Z",
          "yesterday",
          "2026-01-01",
          "1e308",
          "-271821-04-20T00:00:00.000Z",
          "+275760-09-13T00:00:00.001Z",
          "2026-01-01T25:00:00Z",
        ),
      );
    return options;
  }

  private invalidArrays(s: JsonSchema, name: string | undefined): fc.Arbitrary<Node>[] {
    const options: fc.Arbitrary<Node>[] = [];
    const items = (s.items ?? {}) as JsonSchema;
    if (typeof s.minItems === "number" && s.minItems > 0) options.push(fc.constant([]));
    if (typeof s.maxItems === "number") {
      const over = s.maxItems + 1;
      options.push(this.valid(items, name).map((value) => Array.from({ length: over }, () => value)));
    }
    options.push(
      fc
        .tuple(fc.array(this.valid(items, name), { maxLength: 3 }), this.invalid(items, name), fc.nat())
        .map(([list, bad, at]) => list.toSpliced(at % (list.length + 1), 0, bad)),
    );
    return options;
  }

  private invalidObjects(s: JsonSchema): fc.Arbitrary<Node>[] {
    const properties = Object.keys((s.properties ?? {}) as Record<string, unknown>).filter(
      (key) => !isOnlyDescribed(this.property(s, key)),
    );
    const required = ((s.required ?? []) as string[]).filter((key) => properties.includes(key));
    const options: fc.Arbitrary<Node>[] = [];
    if (properties.length > 0) {
      options.push(
        fc
          .constantFrom(...properties)
          .chain((key) => fc.tuple(fc.constant(key), this.valid(s), this.invalid(this.property(s, key), key)))
          .map(([key, value, bad]) => replaceEntry(value, key, bad)),
      );
    }
    if (required.length > 0) {
      options.push(
        fc.tuple(fc.constantFrom(...required), this.valid(s)).map(([key, value]) => removeEntry(value, key)),
      );
    }
    if (s.additionalProperties === false) {
      options.push(
        fc
          .tuple(this.valid(s), fc.constantFrom("unknownField", "Name", "email ", "isadmin"))
          .map(([value, key]) => addEntry(value, key, 1)),
      );
    }
    return options;
  }
}

/** What makes two items of a list the same: the record the item names, else the item. */
function uniqueKey(item: Node): unknown {
  for (const ref of idsOf(item)) return `${ref.kind} ${ref.index}`;
  return item;
}

function validString(s: JsonSchema, name: string | undefined): fc.Arbitrary<Node> {
  const minLength = typeof s.minLength === "number" ? s.minLength : 0;
  const maxLength = typeof s.maxLength === "number" ? s.maxLength : 10_000;
  if (s.pattern === OBJECT_ID_PATTERN) return validId(kindOfName(name));
  if (s.format === "email") {
    // Unique enough that creates succeed; sometimes with the accents the contract's example has.
    return fc
      .tuple(
        fc.stringMatching(/^[a-z][a-z0-9.+_-]{0,20}$/),
        fc.nat(),
        fc.constantFrom("example.com", "acme.io", "ACME.io", "xn--bcher-kva.example", "exámple.com"),
      )
      .map(([local, n, domain]) => `${local.replace(/\.+$/, "")}${n}@${domain}`)
      .filter((email) => email.length <= maxLength && !/\.\./.test(email));
  }
  // A URL the service calls (a webhook's) must be one the run allows: nothing else passes its guard.
  if (s.format === "uri") return fc.nat({ max: 9999 }).map((n) => `${FUZZ_WEBHOOK_ORIGIN}/hook/${n}`);
  if (s.format === "date-time") {
    return fc
      .date({ min: new Date("1970-01-01T00:00:00Z"), max: new Date("2100-01-01T00:00:00Z"), noInvalidDate: true })
      .map((date) => date.toISOString());
  }
  if (typeof s.pattern === "string") {
    return fc
      .stringMatching(new RegExp(s.pattern))
      .filter((text) => text.length >= minLength && text.length <= maxLength);
  }
  return fc.oneof(
    {
      arbitrary: fc.string({ unit: "grapheme", minLength, maxLength: Math.max(minLength, Math.min(maxLength, 30)) }),
      weight: 8,
    },
    {
      arbitrary: fc.string({ unit: "grapheme-ascii", minLength: maxLength, maxLength }),
      weight: maxLength <= 1000 ? 1 : 0,
    },
  );
}

function invalidNumbers(s: JsonSchema, integer: boolean): fc.Arbitrary<Node>[] {
  const options: fc.Arbitrary<Node>[] = [
    fc.constantFrom(...HUGE_NUMBERS).map((text) => new Raw(text, `number ${text}`)),
  ];
  if (typeof s.minimum === "number") options.push(fc.constant(s.minimum - 1));
  if (typeof s.maximum === "number") options.push(fc.constant(s.maximum + 1));
  if (integer) options.push(fc.constant(1.5));
  return options;
}

/** A value of none of the schema's types. */
function wrongType(s: JsonSchema): fc.Arbitrary<Node> {
  const types = typesOf(s);
  const candidates: [Type, Node][] = [
    ["null", null],
    ["boolean", true],
    ["number", 1],
    ["string", "1"],
    ["array", []],
    ["object", new Obj([])],
  ];
  const accepts = (type: Type) => types.includes(type) || (type === "number" && types.includes("integer"));
  const wrong = candidates.filter(([type]) => types.length > 0 && !accepts(type)).map(([, value]) => value);
  if ("const" in s || Array.isArray(s.enum)) wrong.push("not-one-of-them");
  return wrong.length > 0 ? fc.constantFrom(...wrong) : fc.constantFrom<Node>(null, 1, "1");
}

function typesOf(s: JsonSchema): Type[] {
  if (typeof s.type === "string") return [s.type as Type];
  if (Array.isArray(s.type)) return s.type as Type[];
  if (s.properties) return ["object"];
  if (s.items) return ["array"];
  return [];
}

/** A field whose schema only describes it (the service sets it): any value passes. */
const isOnlyDescribed = (schema: JsonSchema) => Object.keys(schema).every((key) => key === "description");

function merge(a: JsonSchema, b: JsonSchema): JsonSchema {
  const merged: JsonSchema = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const existing = merged[key];
    merged[key] =
      existing &&
      typeof existing === "object" &&
      !Array.isArray(existing) &&
      value &&
      typeof value === "object" &&
      !Array.isArray(value)
        ? merge(existing as JsonSchema, value as JsonSchema)
        : value;
  }
  return merged;
}

function replaceEntry(value: Node, key: string, replacement: Node): Node {
  if (!(value instanceof Obj)) return value;
  return new Obj([...value.entries.filter(([k]) => k !== key), [key, replacement]]);
}

function removeEntry(value: Node, key: string): Node {
  return value instanceof Obj ? new Obj(value.entries.filter(([k]) => k !== key)) : value;
}

function addEntry(value: Node, key: string, extra: Node): Node {
  return value instanceof Obj ? new Obj([...value.entries, [key, extra]]) : value;
}
