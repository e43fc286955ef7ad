/**
 * The requests of the API fuzzer (./fuzz.ts) as fast-check arbitraries, per operation and kind of
 * case: valid (every place from the operation's own schemas), invalid (one place broken: token,
 * Admin header, path id, query, body or headers), hostile (the body and any other places at
 * once) and cross-company (a valid request naming the other company's records).
 */
import { openApiDocument, type OpenApiDocument } from "@/lib/platform/openapi/document";
import fc from "fast-check";
import { deepNesting, hostileKey, hostileString, malformedId, SchemaArbitraries, validPathId } from "./arbitraries";
import { IdRef, type Node, Obj } from "./values";
import type { FuzzWorld, OperationSpec } from "./world";

// ---------------------------------------------------------------------------------------------
// The cases

export const FLAVOURS = ["valid", "invalid", "hostile", "cross"] as const;
export type Flavour = (typeof FLAVOURS)[number];

export type Auth = "admin" | "member" | "none" | "expired" | "forged" | "garbage" | "basic" | "other-scheme";

/** A query parameter: a value (an array is repeated, or joined by commas), or raw query text. */
export type QueryPart = { key: string; value: Node; comma?: boolean } | { raw: string };

export type Body =
  | { kind: "json"; node: Node; contentType: string | null }
  | { kind: "bytes"; bytes: Uint8Array; label: string; contentType: string | null };

export interface FuzzCase {
  op: number;
  flavour: Flavour;
  actor: "a" | "b";
  auth: Auth;
  admin: string | null;
  pathId?: IdRef | string;
  query: QueryPart[];
  body?: Body;
  headers: [string, string][];
}

/** A small valid file for an operation that takes one (an import): one row, of a user that may or may not exist. */
const uploadBody = (type: string): Body => ({
  kind: "bytes",
  bytes: new TextEncoder().encode(
    type === "text/csv"
      ? "email,accessRoles\nfuzz.upload@example.com,Member\n"
      : '{"email":"fuzz.upload@example.com","accessRoles":["Member"]}\n',
  ),
  label: "a small file",
  contentType: type,
});

const JSON_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "application/json;charset=UTF-8",
  "application/vnd.api+json",
];
const ODD_TYPES = [
  null,
  "",
  "text/plain",
  "text/json",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/xml",
  "application/json; charset=latin1",
  "application/json; charset=utf-16",
  "APPLICATION/JSON",
  "application/json;;;",
  'application/json; charset="utf-8"',
  "application/jsonx",
  "application/+json",
  "*/*",
  "application/json, text/plain",
];

export const enc = new TextEncoder();
const bytesOf = (...parts: (string | number[])[]) =>
  new Uint8Array(parts.flatMap((part) => (typeof part === "string" ? [...enc.encode(part)] : part)));

/** Whole bodies that are not JSON, or not text. */
const BAD_BODIES: [string, Uint8Array][] = [
  ["empty", bytesOf("")],
  ["whitespace", bytesOf(" \n\t ")],
  ["invalid UTF-8 0xff", bytesOf('{"name":"', [0xff, 0xfe], '"}')],
  ["overlong UTF-8", bytesOf('{"name":"', [0xc0, 0xaf], '"}')],
  ["truncated UTF-8", bytesOf('{"name":"', [0xe2, 0x82], '"}')],
  ["UTF-16 JSON", new Uint8Array([0xff, 0xfe, ...[...'{"name":"x"}'].flatMap((c) => [c.charCodeAt(0), 0])])],
  ["BOM", bytesOf("\ufeff{}")],
  ["null", bytesOf("null")],
  ["array", bytesOf("[]")],
  ["number", bytesOf("1e999")],
  ["string", bytesOf('"text"')],
  ["truncated JSON", bytesOf('{"name":"x"')],
  ["trailing garbage", bytesOf("{} x")],
  ["comment", bytesOf("/* */{}")],
  ["single quotes", bytesOf("{'name':'x'}")],
  ["NaN literal", bytesOf('{"name":NaN}')],
  ["duplicate keys", bytesOf('{"name":"a","name":"b","isAdmin":false,"isAdmin":true}')],
  ["NUL byte", bytesOf('{"name":"a\u0000b"}')],
  ["raw NUL outside a string", bytesOf('{"name":"a"}\u0000')],
  ["form data", bytesOf("name=x&isAdmin=true")],
  ["prototype pollution", bytesOf('{"__proto__":{"isAdmin":true},"name":"x"}')],
  ["constructor pollution", bytesOf('{"constructor":{"prototype":{"isAdmin":true}},"name":"x"}')],
];

/** Query parameters whose valid values only the server makes. */
const OPAQUE_PARAMETERS = new Set(["cursor"]);

const RAW_QUERY = [
  "%ZZ",
  "%",
  "%E0%A4%A",
  "%C0%AF=1",
  "%00=%00",
  "&&&",
  "=",
  "==",
  "a=b=c",
  ";",
  "+=+",
  "%2B=%26",
  "page=%00",
  "limit=%EF%BC%91",
  "email[$ne]=x",
  "a[b][c]=1",
  "__proto__[isAdmin]=true",
  "constructor=1",
  "toString=1",
  "hasOwnProperty=1",
  "page[]=1",
  "debug=true&debug=true",
  "debug=yes",
  "debug=TRUE",
];

const NAN_QUERY = [
  "NaN",
  "Infinity",
  "-0",
  "1e308",
  "1e309",
  "18446744073709551616",
  "9007199254740993",
  "0x10",
  "1.5",
  "-1",
  "0",
  " 1",
  "１",
  "",
  "null",
  "true",
  "000000000001",
  "99999999999",
];

/** Header values a client can send (text without CR, LF or NUL; Latin-1 at most). */
const headerValue = fc.oneof(
  fc.string({ unit: "binary-ascii", maxLength: 40 }).map((text) => text.replace(/[\0\r\n]/g, "")),
  fc.constantFrom("é", "\u00ff\u00fe", "true", "false", "TRUE", "1", "", " ", "null", "a".repeat(10_000)),
);

export class CaseArbitraries {
  private readonly schemas: SchemaArbitraries;

  constructor(
    private readonly specs: OperationSpec[],
    private readonly world: FuzzWorld,
    document: OpenApiDocument = openApiDocument(),
  ) {
    this.schemas = new SchemaArbitraries(document as unknown as Record<string, unknown>);
  }

  /** Any case of any operation. */
  all(): fc.Arbitrary<FuzzCase> {
    // Without bias: fast-check favours small integers, which would favour the first operations.
    return fc.noBias(fc.nat({ max: this.specs.length - 1 })).chain((op) => this.of(op));
  }

  of(op: number): fc.Arbitrary<FuzzCase> {
    return fc
      .oneof(
        { arbitrary: fc.constant<Flavour>("valid"), weight: 10 },
        { arbitrary: fc.constant<Flavour>("invalid"), weight: 5 },
        { arbitrary: fc.constant<Flavour>("hostile"), weight: 4 },
        { arbitrary: fc.constant<Flavour>("cross"), weight: 2 },
      )
      .chain((flavour) => this.ofFlavour(op, flavour));
  }

  private readonly cache = new Map<string, fc.Arbitrary<FuzzCase>>();

  /** Built once per operation and kind: building them is far slower than drawing from them. */
  ofFlavour(op: number, flavour: Flavour): fc.Arbitrary<FuzzCase> {
    const key = `${op} ${flavour}`;
    let arbitrary = this.cache.get(key);
    if (!arbitrary) {
      arbitrary = this.build(op, flavour);
      this.cache.set(key, arbitrary);
    }
    return arbitrary;
  }

  private build(op: number, flavour: Flavour): fc.Arbitrary<FuzzCase> {
    const spec = this.specs[op];
    const valid = {
      auth: fc.constant<Auth>("admin"),
      admin: fc.constant<string | null>("true"),
      pathId: spec.pathKind ? validPathId(spec.pathKind) : fc.constant(undefined),
      query: this.validQuery(spec),
      body: spec.body
        ? this.validBody(spec)
        : spec.upload
          ? fc.constant<Body>(uploadBody(spec.upload))
          : fc.constant(undefined),
      headers: fc.constant<[string, string][]>([]),
    };
    const invalid = {
      auth: fc.constantFrom<Auth>("member", "none", "expired", "forged", "garbage", "basic", "other-scheme"),
      admin: fc.constantFrom<string | null>(null, "false", "TRUE", "1", "yes", "true, true"),
      pathId: spec.pathKind
        ? fc.oneof(
            malformedId,
            fc.nat().map((n) => new IdRef(spec.pathKind!, n, "unknown")),
          )
        : fc.constant(undefined),
      query: this.invalidQuery(spec),
      body: spec.body ? this.invalidBody(spec) : fc.constant(undefined),
      headers: this.hostileHeaders(),
    };
    const hostile = {
      ...invalid,
      pathId: spec.pathKind ? malformedId : fc.constant(undefined),
      query: this.hostileQuery(spec),
      body: spec.body ? this.hostileBody(spec) : fc.constant(undefined),
    };
    const actor = fc.constantFrom<"a" | "b">("a", "b");
    const parts = (chosen: typeof valid) =>
      fc.record({ actor, ...chosen }).map((fields): FuzzCase => ({ op, flavour, ...fields }));

    if (flavour === "valid" || flavour === "cross") return parts(valid);
    const places = (["auth", "admin", "pathId", "query", "body", "headers"] as const).filter(
      (place) =>
        (place !== "admin" || spec.admin) &&
        (place !== "auth" || spec.authenticated) &&
        (place !== "pathId" || spec.pathKind) &&
        (place !== "body" || spec.body),
    );
    const source = flavour === "invalid" ? invalid : hostile;
    if (flavour === "invalid") {
      // One place broken, the rest valid: each check is reached on its own.
      return fc.constantFrom(...places).chain((place) => parts({ ...valid, [place]: source[place] }));
    }
    // Hostile: the body alone mostly (with a valid token, or it would never be read), else any
    // places at once.
    const alone = spec.body ? ["body" as const] : undefined;
    const chosenPlaces = fc.oneof(
      { arbitrary: alone ? fc.constant(alone) : fc.subarray([...places], { minLength: 1, maxLength: 1 }), weight: 3 },
      { arbitrary: fc.subarray([...places], { minLength: 1 }), weight: 1 },
    );
    return chosenPlaces.chain((chosen) =>
      parts({ ...valid, ...Object.fromEntries(chosen.map((place) => [place, source[place]])) }),
    );
  }

  private validBody(spec: OperationSpec): fc.Arbitrary<Body> {
    let node = this.schemas.valid(spec.body!);
    if (spec.key === "POST /api/auth/login") {
      // The seeded admins' own credentials, so that sign-in succeeds too.
      const signIn = fc
        .tuple(fc.constantFrom(this.world.a, this.world.b), fc.boolean(), fc.boolean())
        .map(
          ([company, upper, withCompany]) =>
            new Obj([
              ["email", upper ? company.adminEmail.toUpperCase() : company.adminEmail],
              ["password", company.adminPassword],
              ...(withCompany ? [["companyId", company.id] as [string, Node]] : []),
            ]),
        );
      node = fc.oneof({ arbitrary: signIn, weight: 3 }, { arbitrary: node, weight: 1 });
    }
    if (spec.key === "PUT /v2/surveys/{id}/content") {
      // The schema cannot say that only choice questions carry options, nor which ids are the
      // survey's: new chats and questions of each type, so that a replacement succeeds too.
      const question = fc
        .constantFrom("text", "number", "date", "yes_no", "rating", "single_choice", "multiple_choice")
        .chain((type) =>
          fc
            .tuple(
              fc.stringMatching(/^[A-Za-z][A-Za-z ?]{0,30}$/),
              fc.uniqueArray(fc.stringMatching(/^[a-z]{1,8}$/), { minLength: 2, maxLength: 5 }),
            )
            .map(
              ([text, options]) =>
                new Obj([
                  ["text", text],
                  ["type", type],
                  ...(type.endsWith("_choice") ? [["options", options] as [string, Node]] : []),
                ]),
            ),
        );
      const chat = fc.tuple(fc.stringMatching(/^[A-Za-z][A-Za-z ]{0,20}$/), fc.array(question, { maxLength: 4 })).map(
        ([name, questions]) =>
          new Obj([
            ["name", name],
            ["questions", questions],
          ]),
      );
      const content = fc.array(chat, { maxLength: 3 }).map((chats) => new Obj([["chat", chats]]));
      node = fc.oneof({ arbitrary: content, weight: 3 }, { arbitrary: node, weight: 1 });
    }
    if (spec.key === "POST /v2/surveys/{id}/answers") {
      // A text question of the survey in the path (the fuzzer picks it) answered with a short string.
      const answer = fc.tuple(fc.nat(), fc.stringMatching(/^[A-Za-z ]{1,40}$/)).map(
        ([index, value]) =>
          new Obj([
            ["question", new IdRef("questions", index, "own")],
            ["value", value],
          ]),
      );
      node = fc.oneof(
        { arbitrary: answer.map((one) => new Obj([["answers", [one]]])), weight: 3 },
        { arbitrary: node, weight: 1 },
      );
    }
    return fc.record({ kind: fc.constant("json" as const), node, contentType: fc.constantFrom(...JSON_TYPES) });
  }

  private invalidBody(spec: OperationSpec): fc.Arbitrary<Body> {
    return fc.oneof(
      {
        arbitrary: fc.record({
          kind: fc.constant("json" as const),
          node: this.schemas.invalid(spec.body!),
          contentType: fc.constantFrom(...JSON_TYPES),
        }),
        weight: 6,
      },
      {
        arbitrary: fc.record({
          kind: fc.constant("json" as const),
          node: this.schemas.valid(spec.body!),
          contentType: fc.constantFrom(...ODD_TYPES),
        }),
        weight: 1,
      },
      {
        arbitrary: fc
          .record({
            kind: fc.constant("bytes" as const),
            bad: fc.constantFrom(...BAD_BODIES),
            contentType: fc.constantFrom<string | null>(...JSON_TYPES, ...ODD_TYPES),
          })
          .map(({ bad: [label, bytes], contentType }): Body => ({ kind: "bytes", bytes, label, contentType })),
        weight: 2,
      },
    );
  }

  private hostileBody(spec: OperationSpec): fc.Arbitrary<Body> {
    return fc.oneof(
      {
        arbitrary: fc.record({
          kind: fc.constant("json" as const),
          node: this.schemas.hostile(spec.body!),
          contentType: fc.constantFrom(...JSON_TYPES),
        }),
        weight: 6,
      },
      { arbitrary: this.invalidBody(spec), weight: 1 },
      // The whole body nested deep: what a parser or a recursive check chokes on first.
      {
        arbitrary: fc.record({
          kind: fc.constant("json" as const),
          node: deepNesting,
          contentType: fc.constant("application/json"),
        }),
        weight: 4,
      },
    );
  }

  private validQuery(spec: OperationSpec): fc.Arbitrary<QueryPart[]> {
    // A valid cursor is only one the server gave (signed); any other string is a 400, which the
    // invalid and hostile cases try.
    const parts = spec.query
      .filter((parameter) => !OPAQUE_PARAMETERS.has(parameter.name))
      .map((parameter) =>
        fc.oneof(
          { arbitrary: fc.constant<QueryPart[]>([]), weight: 3 },
          {
            arbitrary: fc
              .tuple(this.schemas.valid(parameter.schema, parameter.name), fc.boolean())
              .map(([value, comma]): QueryPart[] => [{ key: parameter.name, value, comma }]),
            weight: 1,
          },
        ),
      );
    const debug = fc.oneof(
      { arbitrary: fc.constant<QueryPart[]>([]), weight: 3 },
      {
        arbitrary: fc.constantFrom<QueryPart[]>([{ key: "debug", value: "true" }], [{ key: "debug", value: "false" }]),
        weight: 1,
      },
    );
    return fc.tuple(debug, ...parts).map((lists) => lists.flat());
  }

  private invalidQuery(spec: OperationSpec): fc.Arbitrary<QueryPart[]> {
    const broken: fc.Arbitrary<QueryPart[]>[] = [fc.constantFrom(...RAW_QUERY).map((raw): QueryPart[] => [{ raw }])];
    if (spec.query.length > 0) {
      broken.push(
        fc.constantFrom(...spec.query).chain((parameter) =>
          fc.oneof(
            this.schemas
              .invalid(parameter.schema, parameter.name)
              .map((value): QueryPart[] => [{ key: parameter.name, value }]),
            fc.constantFrom(...NAN_QUERY).map((value): QueryPart[] => [{ key: parameter.name, value }]),
            // A parameter that must appear once, given twice.
            this.schemas.valid(parameter.schema, parameter.name).map((value): QueryPart[] => [
              { key: parameter.name, value },
              { key: parameter.name, value },
            ]),
          ),
        ),
      );
    }
    return fc.tuple(this.validQuery(spec), fc.oneof(...broken)).map(([valid, bad]) => [...valid, ...bad]);
  }

  private hostileQuery(spec: OperationSpec): fc.Arbitrary<QueryPart[]> {
    const names = [...spec.query.map((parameter) => parameter.name), "debug"];
    const value: fc.Arbitrary<Node> = fc.oneof(hostileString, fc.constantFrom(...NAN_QUERY), malformedId);
    // Short values only when repeated: hundreds of huge ones would only measure memory.
    const shortValue: fc.Arbitrary<Node> = fc.oneof(
      fc.constantFrom(...NAN_QUERY),
      fc.string({ unit: "binary", maxLength: 30 }),
    );
    const part: fc.Arbitrary<QueryPart[]> = fc.oneof(
      fc.tuple(fc.constantFrom(...names), value).map(([key, v]): QueryPart[] => [{ key, value: v }]),
      fc.tuple(hostileKey, value).map(([key, v]): QueryPart[] => [{ key, value: v }]),
      // The same parameter many times over.
      fc
        .tuple(fc.constantFrom(...names), fc.integer({ min: 2, max: 300 }), shortValue)
        .map(([key, times, v]) => Array.from({ length: times }, (): QueryPart => ({ key, value: v }))),
      fc.constantFrom(...RAW_QUERY).map((raw): QueryPart[] => [{ raw }]),
    );
    return fc
      .tuple(this.validQuery(spec), fc.array(part, { minLength: 1, maxLength: 4 }))
      .map(([valid, bad]) => [...valid, ...bad.flat()]);
  }

  private hostileHeaders(): fc.Arbitrary<[string, string][]> {
    const header = fc.oneof(
      fc.tuple(
        fc.constantFrom(
          "x-request-id",
          "content-length",
          "accept",
          "origin",
          "cookie",
          "x-forwarded-for",
          "accept-encoding",
          "x-http-method-override",
          "transfer-encoding",
          "host",
        ),
        headerValue,
      ),
      fc.tuple(
        fc.constantFrom("content-length"),
        fc.constantFrom("-1", "abc", "1e3", "99999999999999999999", "0", "1048577"),
      ),
      fc.tuple(fc.constantFrom("x-request-id"), fc.constantFrom("ok-id.1:2", "a".repeat(129), "bad id", "é", "../x")),
    );
    return fc.array(header, { minLength: 1, maxLength: 3 });
  }
}
