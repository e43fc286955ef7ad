/**
 * The API fuzzer: fast-check generates requests for every operation of the OpenAPI document —
 * valid ones (from the operation's own request schemas, ids of the seeded companies' records, so
 * that success paths run), invalid ones (one place broken) and hostile ones (./fuzz-arbitraries)
 * — sends each as a real `Request` to the route's real handler, and checks the answer:
 *
 * - never a `5xx`, never a stack trace;
 * - a status the document declares for the operation, a body matching that status's schema
 *   (the error shape included), the headers it requires (./validate, as the route tests do);
 * - no company's records in another's answers: an id of one company never appears in an answer
 *   to the other (unless an error echoes what the request sent), a request naming the other
 *   company's record is never a success, and reading it by id is exactly `404`.
 *
 * Used by ./fuzz.test.ts (a fixed seed in CI) and `npm run fuzz` (lib/cli/fuzz.ts).
 */
import fc from "fast-check";
import type { RouteHandler } from "@/lib/http/route";
import { createApiToken } from "@/lib/services/auth";
import { createCompany } from "@/lib/services/companies";
import { ready } from "@/lib/services/init";
import { openApiDocument, type OpenApiDocument, type OperationObject } from "./document";
import { hostileKey, hostileString, malformedId, SchemaArbitraries, validPathId } from "./fuzz-arbitraries";
import { ID_KINDS, IdRef, type IdKind, idsOf, type Node, Obj, Raw, rawLabels, toJsonText } from "./fuzz-values";
import { METHODS, type Method, ROUTES } from "./operations";
import type { JsonSchema } from "./schema";
import { AnswerValidator } from "./validate";

// ---------------------------------------------------------------------------------------------
// The operations

export interface OperationSpec {
  /** `GET /v2/users/{id}` */
  key: string;
  path: string;
  method: Method;
  handler: RouteHandler;
  authenticated: boolean;
  admin: boolean;
  /** The records the `{id}` of the path names. */
  pathKind?: IdKind;
  /** The records a `201` of this operation creates. */
  createsKind?: IdKind;
  query: { name: string; schema: JsonSchema; array: boolean }[];
  body?: JsonSchema;
}

const KIND_OF_SEGMENT: Record<string, IdKind> = {
  users: "users",
  surveys: "surveys",
  "access-roles": "accessRoles",
  "job-titles": "jobTitles",
  properties: "properties",
  bots: "bots",
};

/** Every operation of the document, with the handler that serves it. */
export function operationSpecs(document: OpenApiDocument = openApiDocument()): OperationSpec[] {
  const specs: OperationSpec[] = [];
  for (const entry of ROUTES) {
    const item = document.paths[entry.path];
    for (const method of METHODS) {
      const operation = item?.[method] as (OperationObject & { parameters?: unknown[]; security?: unknown[]; requestBody?: { content: Record<string, { schema: JsonSchema }> } }) | undefined;
      if (!operation) continue;
      const handler = entry.module[method.toUpperCase()] as RouteHandler;
      const parameters = (operation.parameters ?? []).map((parameter) => resolveParameter(document, parameter));
      const kind = KIND_OF_SEGMENT[entry.path.split("/")[2] ?? ""];
      specs.push({
        key: `${method.toUpperCase()} ${entry.path}`,
        path: entry.path,
        method,
        handler,
        authenticated: !(Array.isArray(operation.security) && operation.security.length === 0),
        admin: parameters.some((parameter) => parameter.in === "header" && parameter.name === "Admin"),
        pathKind: entry.path.includes("{id}") ? kind : undefined,
        createsKind: method === "post" && operation.responses["201"] ? kind : undefined,
        query: parameters
          .filter((parameter) => parameter.in === "query" && parameter.name !== "debug")
          .map((parameter) => ({ name: parameter.name, schema: parameter.schema, array: parameter.schema.type === "array" })),
        body: operation.requestBody?.content["application/json"]?.schema,
      });
    }
  }
  return specs;
}

interface Parameter {
  name: string;
  in: string;
  schema: JsonSchema;
}

function resolveParameter(document: OpenApiDocument, parameter: unknown): Parameter {
  const ref = (parameter as { $ref?: string }).$ref;
  if (!ref) return parameter as Parameter;
  return (document.components.parameters as Record<string, Parameter>)[ref.split("/").pop()!];
}

// ---------------------------------------------------------------------------------------------
// The seeded world

export interface FuzzCompany {
  name: "A" | "B";
  id: string;
  adminId: string;
  adminEmail: string;
  adminPassword: string;
  adminToken: string;
  memberToken: string;
  /** A token whose lifetime ended. */
  expiredToken: string;
  /** Ids the requests pick from (the admin is left out: changing it would end the run's admin). */
  pools: Record<IdKind, string[]>;
  /** Every id known to be this company's. */
  ids: Set<string>;
}

export interface FuzzWorld {
  a: FuzzCompany;
  b: FuzzCompany;
}

const POOL_SIZE = 200;

/** Two companies, each with an admin (with a password), a member and a few records of each kind. */
export async function seedWorld(specs: OperationSpec[] = operationSpecs()): Promise<FuzzWorld> {
  await ready();
  const suffix = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const a = await seedCompany("A", suffix, specs);
  const b = await seedCompany("B", suffix, specs);
  // The expired tokens were issued a second ago with a lifetime of one second.
  await new Promise((resolve) => setTimeout(resolve, 1100));
  return { a, b };
}

async function seedCompany(name: "A" | "B", suffix: string, specs: OperationSpec[]): Promise<FuzzCompany> {
  const adminEmail = `fuzz.admin.${name.toLowerCase()}.${suffix}@example.com`;
  const adminPassword = `pw-${name}-${suffix}`;
  const created = await createCompany({ name: `Fuzz ${name} ${suffix}`, adminEmail, adminPassword });
  const admin = await createApiToken(adminEmail, 86_400, created.company._id);
  const company: FuzzCompany = {
    name,
    id: created.company._id,
    adminId: admin.userId,
    adminEmail,
    adminPassword,
    adminToken: admin.accessToken,
    memberToken: "",
    expiredToken: (await createApiToken(adminEmail, 1, created.company._id)).accessToken,
    pools: Object.fromEntries(ID_KINDS.map((kind) => [kind, []])) as unknown as Record<IdKind, string[]>,
    ids: new Set([created.company._id, admin.userId, created.adminRoleId, created.memberRoleId]),
  };
  company.pools.companies.push(company.id);
  company.pools.accessRoles.push(created.adminRoleId, created.memberRoleId);

  const post = async (path: string, body: unknown): Promise<string> => {
    const spec = specs.find((candidate) => candidate.key === `POST ${path}`)!;
    const response = await spec.handler(
      new Request(new URL(path, "http://localhost"), {
        method: "POST",
        headers: { authorization: `Bearer ${company.adminToken}`, admin: "true", "content-type": "application/json" },
        body: JSON.stringify(body),
      }),
      { params: Promise.resolve({}) },
    );
    const text = await response.text();
    if (response.status !== 201) throw new Error(`Seeding ${path} answered ${response.status}: ${text}`);
    const id = (JSON.parse(text) as { _id: string })._id;
    remember(company, spec.createsKind!, id);
    return id;
  };

  for (const n of [1, 2]) {
    await post("/v2/access-roles", { name: `Role ${n}` });
    await post("/v2/job-titles", { name: `Job ${n}` });
    await post("/v2/properties", { name: `Property ${n}` });
    await post("/v2/bots", { name: `Bot ${n}` });
  }
  const memberEmail = `fuzz.member.${name.toLowerCase()}.${suffix}@example.com`;
  await post("/v2/users", {
    email: memberEmail,
    accessRoles: [created.memberRoleId],
    name: { displayName: `Member ${name}`, names: "Member", lastName: name, secondLastName: "" },
  });
  await post("/v2/users", { email: `fuzz.other.${name.toLowerCase()}.${suffix}@example.com`, accessRoles: [created.memberRoleId], job: company.pools.jobTitles[0] });
  company.memberToken = (await createApiToken(memberEmail, 86_400, company.id)).accessToken;
  for (const n of [1, 2]) {
    await post("/v2/surveys", { code: `survey_${n}`, name: `Survey ${n}`, version: n, permissions: [created.memberRoleId] });
  }
  return company;
}

function remember(company: FuzzCompany, kind: IdKind, id: string): void {
  company.ids.add(id);
  const pool = company.pools[kind];
  // Past the pool's size, a new record replaces one in a fixed rotation (the run stays reproducible).
  if (pool.length < POOL_SIZE) pool.push(id);
  else pool[company.ids.size % POOL_SIZE] = id;
}

// ---------------------------------------------------------------------------------------------
// The cases

export const FLAVOURS = ["valid", "invalid", "hostile", "cross"] as const;
export type Flavour = (typeof FLAVOURS)[number];

type Auth = "admin" | "member" | "none" | "expired" | "forged" | "garbage" | "basic" | "other-scheme";

/** A query parameter: a value (an array is repeated, or joined by commas), or raw query text. */
type QueryPart = { key: string; value: Node; comma?: boolean } | { raw: string };

type Body =
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

const JSON_TYPES = ["application/json", "application/json; charset=utf-8", "application/json;charset=UTF-8", "application/vnd.api+json"];
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
  "application/json; charset=\"utf-8\"",
  "application/jsonx",
  "application/+json",
  "*/*",
  "application/json, text/plain",
];

const enc = new TextEncoder();
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

const RAW_QUERY = ["%ZZ", "%", "%E0%A4%A", "%C0%AF=1", "%00=%00", "&&&", "=", "==", "a=b=c", ";", "+=+", "%2B=%26", "page=%00", "limit=%EF%BC%91", "email[$ne]=x", "a[b][c]=1", "__proto__[isAdmin]=true", "constructor=1", "toString=1", "hasOwnProperty=1", "page[]=1", "debug=true&debug=true", "debug=yes", "debug=TRUE"];

const NAN_QUERY = ["NaN", "Infinity", "-0", "1e308", "1e309", "18446744073709551616", "9007199254740993", "0x10", "1.5", "-1", "0", " 1", "１", "", "null", "true", "000000000001", "99999999999"];

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
      body: spec.body ? this.validBody(spec) : fc.constant(undefined),
      headers: fc.constant<[string, string][]>([]),
    };
    const invalid = {
      auth: fc.constantFrom<Auth>("member", "none", "expired", "forged", "garbage", "basic", "other-scheme"),
      admin: fc.constantFrom<string | null>(null, "false", "TRUE", "1", "yes", "true, true"),
      pathId: spec.pathKind ? fc.oneof(malformedId, fc.nat().map((n) => new IdRef(spec.pathKind!, n, "unknown"))) : fc.constant(undefined),
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
      (place) => (place !== "admin" || spec.admin) && (place !== "auth" || spec.authenticated) && (place !== "pathId" || spec.pathKind) && (place !== "body" || spec.body),
    );
    const source = flavour === "invalid" ? invalid : hostile;
    if (flavour === "invalid") {
      // One place broken, the rest valid: each check is reached on its own.
      return fc.constantFrom(...places).chain((place) => parts({ ...valid, [place]: source[place] }));
    }
    // Hostile: the body (when there is one) and any number of other places at once.
    return fc
      .subarray([...places], { minLength: 1 })
      .map((chosen) => (spec.body && !chosen.includes("body") ? [...chosen, "body" as const] : chosen))
      .chain((chosen) => parts({ ...valid, ...Object.fromEntries(chosen.map((place) => [place, source[place]])) }));
  }

  private validBody(spec: OperationSpec): fc.Arbitrary<Body> {
    let node = this.schemas.valid(spec.body!);
    if (spec.key === "POST /api/auth/login") {
      // The seeded admins' own credentials, so that sign-in succeeds too.
      const signIn = fc
        .tuple(fc.constantFrom(this.world.a, this.world.b), fc.boolean(), fc.boolean())
        .map(([company, upper, withCompany]) =>
          new Obj([
            ["email", upper ? company.adminEmail.toUpperCase() : company.adminEmail],
            ["password", company.adminPassword],
            ...(withCompany ? [["companyId", company.id] as [string, Node]] : []),
          ]),
        );
      node = fc.oneof({ arbitrary: signIn, weight: 3 }, { arbitrary: node, weight: 1 });
    }
    return fc.record({ kind: fc.constant("json" as const), node, contentType: fc.constantFrom(...JSON_TYPES) });
  }

  private invalidBody(spec: OperationSpec): fc.Arbitrary<Body> {
    return fc.oneof(
      { arbitrary: fc.record({ kind: fc.constant("json" as const), node: this.schemas.invalid(spec.body!), contentType: fc.constantFrom(...JSON_TYPES) }), weight: 6 },
      { arbitrary: fc.record({ kind: fc.constant("json" as const), node: this.schemas.valid(spec.body!), contentType: fc.constantFrom(...ODD_TYPES) }), weight: 1 },
      {
        arbitrary: fc.record({
          kind: fc.constant("bytes" as const),
          bad: fc.constantFrom(...BAD_BODIES),
          contentType: fc.constantFrom<string | null>(...JSON_TYPES, ...ODD_TYPES),
        }).map(({ bad: [label, bytes], contentType }): Body => ({ kind: "bytes", bytes, label, contentType })),
        weight: 2,
      },
    );
  }

  private hostileBody(spec: OperationSpec): fc.Arbitrary<Body> {
    return fc.oneof(
      { arbitrary: fc.record({ kind: fc.constant("json" as const), node: this.schemas.hostile(spec.body!), contentType: fc.constantFrom(...JSON_TYPES) }), weight: 6 },
      { arbitrary: this.invalidBody(spec), weight: 1 },
    );
  }

  private validQuery(spec: OperationSpec): fc.Arbitrary<QueryPart[]> {
    const parts = spec.query.map((parameter) =>
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
    const debug = fc.oneof({ arbitrary: fc.constant<QueryPart[]>([]), weight: 3 }, { arbitrary: fc.constantFrom<QueryPart[]>([{ key: "debug", value: "true" }], [{ key: "debug", value: "false" }]), weight: 1 });
    return fc.tuple(debug, ...parts).map((lists) => lists.flat());
  }

  private invalidQuery(spec: OperationSpec): fc.Arbitrary<QueryPart[]> {
    const broken: fc.Arbitrary<QueryPart[]>[] = [fc.constantFrom(...RAW_QUERY).map((raw): QueryPart[] => [{ raw }])];
    if (spec.query.length > 0) {
      broken.push(
        fc
          .constantFrom(...spec.query)
          .chain((parameter) =>
            fc.oneof(
              this.schemas.invalid(parameter.schema, parameter.name).map((value): QueryPart[] => [{ key: parameter.name, value }]),
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
    const shortValue: fc.Arbitrary<Node> = fc.oneof(fc.constantFrom(...NAN_QUERY), fc.string({ unit: "binary", maxLength: 30 }));
    const part: fc.Arbitrary<QueryPart[]> = fc.oneof(
      fc.tuple(fc.constantFrom(...names), value).map(([key, v]): QueryPart[] => [{ key, value: v }]),
      fc.tuple(hostileKey, value).map(([key, v]): QueryPart[] => [{ key, value: v }]),
      // The same parameter many times over.
      fc.tuple(fc.constantFrom(...names), fc.integer({ min: 2, max: 300 }), shortValue).map(([key, times, v]) => Array.from({ length: times }, (): QueryPart => ({ key, value: v }))),
      fc.constantFrom(...RAW_QUERY).map((raw): QueryPart[] => [{ raw }]),
    );
    return fc.tuple(this.validQuery(spec), fc.array(part, { minLength: 1, maxLength: 4 })).map(([valid, bad]) => [...valid, ...bad.flat()]);
  }

  private hostileHeaders(): fc.Arbitrary<[string, string][]> {
    const header = fc.oneof(
      fc.tuple(fc.constantFrom("x-request-id", "content-length", "accept", "origin", "cookie", "x-forwarded-for", "accept-encoding", "x-http-method-override", "transfer-encoding", "host"), headerValue),
      fc.tuple(fc.constantFrom("content-length"), fc.constantFrom("-1", "abc", "1e3", "99999999999999999999", "0", "1048577")),
      fc.tuple(fc.constantFrom("x-request-id"), fc.constantFrom("ok-id.1:2", "a".repeat(129), "bad id", "é", "../x")),
    );
    return fc.array(header, { minLength: 1, maxLength: 3 });
  }
}

// ---------------------------------------------------------------------------------------------
// Sending a case and checking its answer

export interface Outcome {
  spec: OperationSpec;
  flavour: Flavour;
  status: number;
  /** Every way the answer is wrong; none: `[]`. */
  problems: string[];
  /** The request and answer, shortened, for a counterexample. */
  exchange: string;
  /** The labels of the hostile values sent. */
  labels: string[];
}

const HEX_ID = /[0-9a-fA-F]{24}/g;
const STACK_TRACE = /\n\s+at [^\n]+:\d+:\d+|node_modules\/|\.tsx?:\d+:\d+/;

export class Fuzzer {
  private readonly validator: AnswerValidator;

  constructor(
    readonly specs: OperationSpec[],
    readonly world: FuzzWorld,
    document: OpenApiDocument = openApiDocument(),
  ) {
    this.validator = new AnswerValidator(document);
  }

  async send(c: FuzzCase): Promise<Outcome> {
    const spec = this.specs[c.op];
    const actor = this.world[c.actor];
    const other = this.world[c.actor === "a" ? "b" : "a"];
    // A cross-company case names the other company's records where the valid case names its own.
    const owner = c.flavour === "cross" ? other : actor;
    const foreignSent = new Set<string>();
    const resolve = (ref: IdRef): string => {
      let id: string;
      const company = ref.owner === "foreign" ? other : ref.owner === "own" ? owner : undefined;
      const pool = company?.pools[ref.kind] ?? [];
      if (company && pool.length > 0) {
        id = pool[pool.length - 1 - (ref.index % pool.length)];
        if (company === other) foreignSent.add(id);
      } else {
        id = unknownId(ref.index);
      }
      return ref.upper ? id.toUpperCase() : id;
    };

    const pathId = c.pathId instanceof IdRef ? resolve(c.pathId) : c.pathId;
    let url = spec.path;
    if (pathId !== undefined) url = url.replace("{id}", safeEncode(pathId));
    const search = new URLSearchParams();
    const rawQuery: string[] = [];
    for (const part of c.query) {
      if ("raw" in part) rawQuery.push(part.raw);
      else if (Array.isArray(part.value) && spec.query.find((parameter) => parameter.name === part.key)?.array) {
        const values = part.value.map((item) => queryText(item, resolve));
        if (part.comma) search.append(part.key, values.join(","));
        else for (const value of values) search.append(part.key, value);
      } else {
        search.append(part.key, queryText(part.value, resolve));
      }
    }
    const queryString = [search.toString(), ...rawQuery].filter(Boolean).join("&");
    if (queryString) url += `?${queryString}`;

    const headers = new Headers();
    const token = this.token(c.auth, actor);
    if (token !== undefined) headers.set("authorization", token);
    if (spec.admin && c.admin !== null) headers.set("admin", c.admin);
    let bodyBytes: Uint8Array | undefined;
    let bodyPreview = "";
    const labels: string[] = [];
    if (c.body) {
      if (c.body.contentType !== null) headers.set("content-type", c.body.contentType);
      if (c.body.kind === "json") {
        const text = toJsonText(c.body.node, resolve);
        bodyBytes = enc.encode(text);
        bodyPreview = text;
        labels.push(...rawLabels(c.body.node));
        for (const ref of idsOf(c.body.node)) if (ref.owner === "foreign") labels.push("foreign id");
      } else {
        bodyBytes = c.body.bytes;
        bodyPreview = `<${c.body.label}> ${new TextDecoder().decode(c.body.bytes)}`;
        labels.push(c.body.label);
      }
    }
    try {
      for (const [name, value] of c.headers) headers.set(name, value);
    } catch {
      // A value Headers refuses is one no client can send: the case goes without it.
    }
    const foreignInPathOrBody = new Set(foreignSent);
    const foreignInQuery = [...foreignSent].filter((id) => queryString.toLowerCase().includes(id));
    for (const id of foreignInQuery) if (!bodyPreview.toLowerCase().includes(id) && pathId?.toLowerCase() !== id) foreignInPathOrBody.delete(id);

    const method = spec.method.toUpperCase();
    const request = new Request(new URL(url, "http://localhost"), { method, headers, body: bodyBytes as BodyInit | undefined });
    const problems: string[] = [];
    let status = 0;
    let text = "";
    let responseHeaders = new Headers();
    try {
      const response = await spec.handler(request, { params: Promise.resolve(pathId === undefined ? {} : { id: pathId }) });
      status = response.status;
      responseHeaders = response.headers;
      text = await response.text();
    } catch (error) {
      problems.push(`the handler threw instead of answering: ${(error as Error)?.stack ?? String(error)}`);
    }

    if (status !== 0) {
      if (status >= 500) problems.push(`a ${status} answer`);
      problems.push(
        ...this.validator.problems({ method, url, status, contentType: responseHeaders.get("content-type"), body: text, headers: responseHeaders }, spec.path),
      );
      if (STACK_TRACE.test(text)) problems.push("the answer holds a stack trace");
      // What a success answers was stored: it must be something a real MongoDB stores too.
      if (status < 300 && nestingOf(text) > MONGODB_MAX_NESTING) problems.push(`a success whose answer nests deeper than MongoDB's ${MONGODB_MAX_NESTING} levels`);
      problems.push(...this.tenancyProblems(c, spec, actor, other, status, text, `${url} ${bodyPreview}`, foreignInPathOrBody, pathId));
      if (status === 201 && spec.createsKind) {
        const id = (safeParse(text) as { _id?: unknown } | undefined)?._id;
        if (typeof id === "string") remember(actor, spec.createsKind, id);
      }
    }

    const tokenName = (value: string) => (value === actor.adminToken ? `<admin token of ${actor.name}>` : value === actor.memberToken ? `<member token of ${actor.name}>` : value === actor.expiredToken ? `<expired token of ${actor.name}>` : short(value, 80));
    const headerLines = [...headers].map(([name, value]) => `  ${name}: ${name === "authorization" ? `Bearer ${tokenName(value.replace(/^\S+\s+/, ""))}` : short(value, 120)}`);
    const exchange = [
      `${c.flavour} case, actor company ${actor.name}${c.flavour === "cross" ? ` naming company ${other.name}'s records` : ""}`,
      `${method} ${short(url, 400)}`,
      ...headerLines,
      ...(bodyBytes ? [`  body (${bodyBytes.byteLength} bytes): ${short(bodyPreview, 400)}`] : []),
      `→ ${status} ${short(text, 600)}`,
    ].join("\n");
    return { spec, flavour: c.flavour, status, problems, exchange, labels };
  }

  private token(auth: Auth, actor: FuzzCompany): string | undefined {
    switch (auth) {
      case "admin":
        return `Bearer ${actor.adminToken}`;
      case "member":
        return `Bearer ${actor.memberToken}`;
      case "none":
        return undefined;
      case "expired":
        return `Bearer ${actor.expiredToken}`;
      case "forged": {
        // The admin's token with its signature changed: same claims, wrong signature.
        const [header, payload, signature] = actor.adminToken.split(".");
        return `Bearer ${header}.${payload}.${signature.startsWith("A") ? "B" : "A"}${signature.slice(1)}`;
      }
      case "garbage":
        return "Bearer not.a.token";
      case "basic":
        return "Basic YWRtaW46YWRtaW4=";
      case "other-scheme":
        return `bearer  ${actor.adminToken}x`;
    }
  }

  /** No company's ids in another's answers; the other company's records are never reachable. */
  private tenancyProblems(
    c: FuzzCase,
    spec: OperationSpec,
    actor: FuzzCompany,
    other: FuzzCompany,
    status: number,
    text: string,
    sent: string,
    foreignInPathOrBody: Set<string>,
    pathId: string | undefined,
  ): string[] {
    const problems: string[] = [];
    if (!spec.authenticated || spec.key === "GET /v2/openapi.json") return problems;
    const sentLower = sent.toLowerCase();
    const shown = new Set((text.match(HEX_ID) ?? []).map((id) => id.toLowerCase()));
    for (const id of shown) {
      if (!other.ids.has(id)) continue;
      // An error may repeat an id the request itself sent; a success never shows the other's.
      if (status >= 400 && sentLower.includes(id)) continue;
      problems.push(`the answer to company ${actor.name} shows company ${other.name}'s id ${id}`);
    }
    if (status >= 200 && status < 300) {
      for (const id of foreignInPathOrBody) problems.push(`a success for a request naming company ${other.name}'s record ${id}`);
      if (c.auth === "admin" || c.auth === "member") for (const id of shown) if (!other.ids.has(id)) actor.ids.add(id);
    }
    const pathIsForeign = pathId !== undefined && foreignInPathOrBody.has(pathId.toLowerCase());
    if (c.flavour === "cross" && spec.method === "get" && pathIsForeign && status !== 404) {
      problems.push(`reading company ${other.name}'s record ${pathId} with company ${actor.name}'s token answered ${status}, not 404`);
    }
    return problems;
  }
}

/** MongoDB refuses documents nested deeper; the embedded database does not. */
const MONGODB_MAX_NESTING = 100;

/** How many levels of objects and arrays a JSON text nests (brackets inside strings skipped). */
function nestingOf(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === "\\") i++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === "{" || char === "[") max = Math.max(max, ++depth);
    else if (char === "}" || char === "]") depth--;
  }
  return max;
}

/** A valid id of no record (ids the database makes start with a timestamp, never `ffff…`). */
const unknownId = (n: number) => `ffffffff${(n % 0xffffffff).toString(16).padStart(16, "0")}`;

function queryText(node: Node, resolve: (ref: IdRef) => string): string {
  if (typeof node === "string") return node;
  if (node instanceof IdRef) return resolve(node);
  if (node instanceof Raw) return node.text;
  if (typeof node === "number" || typeof node === "boolean" || node === null) return String(node);
  return toJsonText(node, resolve);
}

function safeEncode(segment: string): string {
  try {
    return encodeURIComponent(segment);
  } catch {
    return "x";
  }
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const short = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text);

// ---------------------------------------------------------------------------------------------
// A run and its figures

export interface Failure {
  /** What went wrong, with ids and numbers left out: one entry per kind of failure. */
  signature: string;
  problems: string[];
  count: number;
  /** The first case that showed it. */
  exchange: string;
}

export interface FuzzReport {
  seed: number;
  runs: number;
  elapsedMs: number;
  byOperation: Map<string, { cases: number; ms: number; statuses: Map<number, number> }>;
  byFlavour: Map<Flavour, number>;
  labels: Map<string, number>;
  failures: Failure[];
}

export interface FuzzOptions {
  seed: number;
  runs: number;
  /** After each case, with the figures so far. */
  onCase?: (report: FuzzReport, outcome: Outcome) => void;
}

export async function runFuzz(fuzzer: Fuzzer, options: FuzzOptions): Promise<FuzzReport> {
  const started = performance.now();
  const report: FuzzReport = {
    seed: options.seed,
    runs: 0,
    elapsedMs: 0,
    byOperation: new Map(fuzzer.specs.map((spec) => [spec.key, { cases: 0, ms: 0, statuses: new Map() }])),
    byFlavour: new Map(FLAVOURS.map((flavour) => [flavour, 0])),
    labels: new Map(),
    failures: [],
  };
  const failures = new Map<string, Failure>();
  const cases = new CaseArbitraries(fuzzer.specs, fuzzer.world).all();
  // Every case runs (the property holds whatever the answer): failures are collected, not shrunk,
  // so one run reports every kind of failure with its first counterexample.
  await fc.assert(
    fc.asyncProperty(cases, async (c) => {
      const sentAt = performance.now();
      const outcome = await fuzzer.send(c);
      report.runs += 1;
      const operation = report.byOperation.get(outcome.spec.key)!;
      operation.cases += 1;
      operation.ms += performance.now() - sentAt;
      operation.statuses.set(outcome.status, (operation.statuses.get(outcome.status) ?? 0) + 1);
      report.byFlavour.set(outcome.flavour, (report.byFlavour.get(outcome.flavour) ?? 0) + 1);
      for (const label of new Set(outcome.labels)) report.labels.set(label, (report.labels.get(label) ?? 0) + 1);
      if (outcome.problems.length > 0) {
        const signature = `${outcome.spec.key} → ${outcome.status}: ${normalise(outcome.problems[0])}`;
        const known = failures.get(signature);
        if (known) known.count += 1;
        else {
          const failure = { signature, problems: outcome.problems.slice(0, 10), count: 1, exchange: outcome.exchange };
          failures.set(signature, failure);
          report.failures.push(failure);
        }
      }
      report.elapsedMs = performance.now() - started;
      options.onCase?.(report, outcome);
    }),
    { seed: options.seed, numRuns: options.runs, endOnFailure: true },
  );
  report.elapsedMs = performance.now() - started;
  return report;
}

const normalise = (problem: string) =>
  problem
    .replace(HEX_ID, "<id>")
    .replace(/\/v2\/[^\s]*/g, (path) => path.replace(/\/[^/\s]+$/, "/…"))
    .replace(/\d+/g, "N")
    .split("\n")[0]
    .slice(0, 300);

/** The figures of a run, as text. */
export function formatReport(report: FuzzReport): string {
  const lines: string[] = [];
  const seconds = report.elapsedMs / 1000;
  lines.push(`API fuzz: ${report.runs} cases, seed ${report.seed}, ${seconds.toFixed(1)} s (${(report.runs / Math.max(seconds, 0.001)).toFixed(0)} cases/s)`);
  lines.push(`Kinds of case: ${[...report.byFlavour].map(([flavour, n]) => `${flavour} ${n}`).join(", ")}`);
  lines.push("");
  lines.push("Cases, mean time and statuses per operation:");
  const width = Math.max(...[...report.byOperation.keys()].map((key) => key.length));
  for (const [key, { cases, ms, statuses }] of report.byOperation) {
    const seen = [...statuses].sort(([a], [b]) => a - b).map(([status, n]) => `${status}×${n}`).join(" ");
    const mean = cases > 0 ? `${(ms / cases).toFixed(1)} ms` : "-";
    lines.push(`  ${key.padEnd(width)}  ${String(cases).padStart(7)}  ${mean.padStart(9)}  ${seen}`);
  }
  lines.push("");
  lines.push(`Hostile values sent (cases holding each): ${[...report.labels].sort(([, a], [, b]) => b - a).slice(0, 40).map(([label, n]) => `${label} ×${n}`).join("; ")}`);
  lines.push("");
  if (report.failures.length === 0) {
    lines.push("Failures: none.");
  } else {
    lines.push(`Failures: ${report.failures.length} kinds, ${report.failures.reduce((sum, failure) => sum + failure.count, 0)} cases.`);
    for (const failure of report.failures) {
      lines.push("");
      lines.push(`✗ ${failure.signature} (${failure.count} cases)`);
      for (const problem of failure.problems) lines.push(`    ${short(problem, 500)}`);
      lines.push(failure.exchange.split("\n").map((line) => `    ${line}`).join("\n"));
    }
  }
  return lines.join("\n");
}
