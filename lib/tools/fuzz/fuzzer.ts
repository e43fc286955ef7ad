/**
 * The API fuzzer: fast-check generates requests for every operation of the OpenAPI document —
 * valid ones (from the operation's own request schemas, ids of the seeded companies' records, so
 * that success paths run), invalid ones (one place broken) and hostile ones (./arbitraries.ts)
 * — sends each as a real `Request` to the route's real handler, and checks the answer:
 *
 * - never a `5xx`, never a stack trace;
 * - a status the document declares for the operation, a body matching that status's schema
 *   (the error shape included), the headers it requires (./validate, as the route tests do);
 * - no company's records in another's answers: an id of one company never appears in an answer
 *   to the other (unless an error echoes what the request sent), a request naming the other
 *   company's record is never a success, and reading it by id is exactly `404`.
 *
 * Used by ./fuzz.test.ts (a fixed seed in CI) and `npm run fuzz` (lib/tools/fuzz/cli.ts).
 */
import { oid } from "@/lib/kernel/ids";
import { openApiDocument, type OpenApiDocument } from "@/lib/platform/openapi/document";
import { AnswerValidator } from "@/lib/platform/openapi/validate";
import { createApiToken, isAdmin, principalOf, verifyAccessToken } from "@/lib/resources/auth/service";
import { adminRoleIds } from "@/lib/resources/reference/repository";
import { activeHolderEmails } from "@/lib/resources/users/repository";
import fc from "fast-check";
import { type Auth, CaseArbitraries, enc, type Flavour, FLAVOURS, type FuzzCase } from "./cases";
import { IdRef, idsOf, type Node, Raw, rawLabels, toJsonText } from "./values";
import {
  forget,
  type FuzzCompany,
  type FuzzWorld,
  type OperationSpec,
  remember,
  rememberChild,
  rememberContent,
} from "./world";

export { type FuzzCase } from "./cases";
export { operationSpecs, seedWorld, type FuzzWorld, type OperationSpec } from "./world";

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

// An id is 24 hex digits standing alone: a long run of them (a name of 1,000 "a"s) holds no id.
const HEX_ID = /(?<![0-9a-fA-F])[0-9a-fA-F]{24}(?![0-9a-fA-F])/g;
/** The incoming request ids the service echoes rather than replaces. */
const REQUEST_ID = /^[A-Za-z0-9_.:-]{1,128}$/;
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

  /**
   * Records of each kind a create makes whose pools the seeded world left empty (a resource the
   * world does not make by hand): valid creates of the fuzzer's own, sent for each company until it
   * holds two of them, so that requests naming one by id can succeed.
   */
  async seedOtherKinds(seed: number): Promise<void> {
    const arbitraries = new CaseArbitraries(this.specs, this.world);
    for (const [op, spec] of this.specs.entries()) {
      if (spec.method !== "post" || !spec.createsKind || spec.pathKind) continue;
      const kind = spec.createsKind;
      const held = (company: FuzzCompany) => company.pools[kind]?.length ?? 0;
      for (const company of [this.world.a, this.world.b]) {
        if (held(company) >= 2) continue;
        const actor = company === this.world.a ? "a" : "b";
        for (const c of fc.sample(arbitraries.ofFlavour(op, "valid"), { seed, numRuns: 50 })) {
          await this.send({ ...c, actor });
          if (held(company) >= 2) break;
        }
      }
    }
  }

  async send(c: FuzzCase): Promise<Outcome> {
    const spec = this.specs[c.op];
    const actor = this.world[c.actor];
    const other = this.world[c.actor === "a" ? "b" : "a"];
    // A cross-company case names the other company's records where the valid case names its own.
    const owner = c.flavour === "cross" ? other : actor;
    const foreignSent = new Set<string>();
    // A question named beside a survey in the path is one of that survey's when its content is known.
    let surveyInPath: string | undefined;
    // A valid case that finds no record of its own left to name (all deleted) may answer 404.
    let noneLeft = false;
    const answering = spec.key === "POST /v2/surveys/{id}/answers";
    const resolve = (ref: IdRef): string => {
      let id: string;
      const company = ref.owner === "foreign" ? other : ref.owner === "own" ? owner : undefined;
      const ofSurvey =
        ref.kind === "questions" && surveyInPath !== undefined ? company?.questionsOf.get(surveyInPath) : undefined;
      // An answer names a survey with text questions to answer when there is one, whatever else the run has made.
      const answerable =
        answering && ref.kind === "surveys"
          ? (company?.pools.surveys ?? []).filter((survey) => company?.questionsOf.get(survey)?.length)
          : undefined;
      const pool = ofSurvey?.length ? ofSurvey : answerable?.length ? answerable : (company?.pools[ref.kind] ?? []);
      if (company && pool.length > 0) {
        id = pool[pool.length - 1 - (ref.index % pool.length)];
        if (company === other) foreignSent.add(id);
      } else {
        id = unknownId(ref.index);
        if (ref.owner === "own") noneLeft = true;
      }
      return ref.upper ? id.toUpperCase() : id;
    };

    const pathId = c.pathId instanceof IdRef ? resolve(c.pathId) : c.pathId;
    if (c.pathId instanceof IdRef && c.pathId.kind === "surveys") surveyInPath = pathId;
    let url = spec.path;
    if (pathId !== undefined) url = url.replace("{id}", safeEncode(pathId));
    // A second id in the path names a record made under the first (a delivery of the webhook).
    const params: Record<string, string> = pathId === undefined ? {} : { id: pathId };
    for (const [, name] of spec.path.matchAll(/\{(\w+)\}/g)) {
      if (name === "id") continue;
      const children = (pathId !== undefined && owner.childrenOf.get(pathId.toLowerCase())) || [];
      const index = c.pathId instanceof IdRef ? c.pathId.index : 0;
      params[name] =
        children.length > 0 && c.pathId instanceof IdRef && c.pathId.owner !== "unknown"
          ? children[children.length - 1 - (index % children.length)]
          : unknownId(index);
      if (c.flavour === "cross" && children.length > 0) foreignSent.add(params[name]);
      url = url.replace(`{${name}}`, safeEncode(params[name]));
    }
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
    for (const id of foreignInQuery)
      if (!bodyPreview.toLowerCase().includes(id) && pathId?.toLowerCase() !== id) foreignInPathOrBody.delete(id);

    const method = spec.method.toUpperCase();
    const request = new Request(new URL(url, "http://localhost"), {
      method,
      headers,
      body: bodyBytes as BodyInit | undefined,
    });
    const problems: string[] = [];
    let status = 0;
    let text = "";
    let responseHeaders = new Headers();
    try {
      const response = await spec.handler(request, { params: Promise.resolve(params) });
      status = response.status;
      responseHeaders = response.headers;
      text = await response.text();
    } catch (error) {
      problems.push(`the handler threw instead of answering: ${(error as Error)?.stack ?? String(error)}`);
    }

    if (status !== 0) {
      if (status >= 500) problems.push(`a ${status} answer`);
      problems.push(
        ...this.validator.problems(
          {
            method,
            url,
            status,
            contentType: responseHeaders.get("content-type"),
            body: text,
            headers: responseHeaders,
          },
          spec.path,
        ),
      );
      if (STACK_TRACE.test(text)) problems.push("the answer holds a stack trace");
      const sentId = headers.get("x-request-id");
      if (sentId && REQUEST_ID.test(sentId) && responseHeaders.get("x-request-id") !== sentId) {
        problems.push(`the valid X-Request-Id ${sentId} was answered with ${responseHeaders.get("x-request-id")}`);
      }
      // What a success answers was stored: it must be something a real MongoDB stores too.
      if (status < 300 && nestingOf(text) > MONGODB_MAX_NESTING)
        problems.push(`a success whose answer nests deeper than MongoDB's ${MONGODB_MAX_NESTING} levels`);
      problems.push(
        ...this.tenancyProblems(
          c,
          spec,
          actor,
          other,
          status,
          text,
          `${url} ${bodyPreview}`,
          foreignInPathOrBody,
          pathId,
        ),
      );
      problems.push(...semanticProblems(noneLeft ? { ...c, flavour: "invalid" } : c, spec, status, text));
      if (status === 200 && spec.key === "PUT /v2/surveys/{id}/content" && pathId !== undefined) {
        const chat = (safeParse(text) as { chat?: { questions: { _id: string; type: string }[] }[] } | undefined)?.chat;
        if (chat) rememberContent(actor, pathId, chat);
      }
      // Saved views are their owner's (unless shared): only the run's admin's go where it reads them.
      if (status === 201 && spec.createsKind && (spec.createsKind !== "views" || c.auth === "admin")) {
        const id = (safeParse(text) as { _id?: unknown } | undefined)?._id;
        if (typeof id === "string") remember(actor, spec.createsKind, id);
      }
      // A record made under another's path (a test delivery, a retry) is named by a path beside it.
      if (status === 200 && spec.method === "post" && pathId !== undefined && c.flavour === "valid") {
        const id = (safeParse(text) as { _id?: unknown } | undefined)?._id;
        if (typeof id === "string" && id.toLowerCase() !== pathId.toLowerCase()) rememberChild(actor, pathId, id);
      }
      if (status === 204 && spec.method === "delete" && spec.pathKind && pathId !== undefined)
        forget(actor, spec.pathKind, pathId);
    }

    const tokenName = (value: string) =>
      value === actor.adminToken
        ? `<admin token of ${actor.name}>`
        : value === actor.memberToken
          ? `<member token of ${actor.name}>`
          : value === actor.expiredToken
            ? `<expired token of ${actor.name}>`
            : short(value, 80);
    const headerLines = [...headers].map(
      ([name, value]) =>
        `  ${name}: ${name === "authorization" ? `Bearer ${tokenName(value.replace(/^\S+\s+/, ""))}` : short(value, 120)}`,
    );
    const exchange = [
      `${c.flavour} case, actor company ${actor.name}${c.flavour === "cross" ? ` naming company ${other.name}'s records` : ""}`,
      `${method} ${short(url, 400)}`,
      ...headerLines,
      ...(bodyBytes ? [`  body (${bodyBytes.byteLength} bytes): ${short(bodyPreview, 400)}`] : []),
      ...(labels.length > 0 ? [`  hostile values: ${[...new Set(labels)].join("; ")}`] : []),
      `→ ${status} ${short(text, 600)}`,
    ].join("\n");
    // The run's admin can lose its power through the API itself (its role turned off once another
    // admin role is held, or the admin deactivated): refusing it is then right, and the run goes on
    // as another active admin of the company, of whom the API always keeps one
    // (docs/api.md#the-last-admin-role).
    if ((status === 401 || status === 403) && c.auth === "admin" && !(await adminPowerHeld(actor))) {
      problems.length = 0;
      if (await this.handOverAdmin(actor)) this.adminHandOvers += 1;
      else problems.push(`company ${actor.name} has no active admin left`);
    }
    return { spec, flavour: c.flavour, status, problems, exchange, labels };
  }

  /** How many times the run went on as another admin (above). */
  adminHandOvers = 0;

  /** Makes another active admin of the company the run's admin; false when there is none. */
  private async handOverAdmin(company: FuzzCompany): Promise<boolean> {
    const companyId = oid(company.id);
    for (const email of await activeHolderEmails(companyId, await adminRoleIds(companyId))) {
      const issued = await createApiToken(email, 86_400, company.id).catch(() => undefined);
      if (!issued) continue;
      company.adminToken = issued.accessToken;
      company.adminId = issued.userId;
      // Saved views are their owner's (unless shared), as above: the new admin reads only those it saves.
      if (company.pools.views) company.pools.views = [];
      if (await adminPowerHeld(company)) return true;
    }
    return false;
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
    const idsIn = (part: string) => new Set((part.match(HEX_ID) ?? []).map((id) => id.toLowerCase()));
    // An error, and the debug notes of any answer, may repeat an id the request itself sent
    // ("no answer has the uuid …"); the records of a success never show the other company's.
    const { records, notes, refusedItems } = splitNotes(text, status);
    const shown = idsIn(records);
    const refused = idsIn(refusedItems);
    for (const id of new Set([...shown, ...idsIn(notes), ...refused])) {
      if (!other.ids.has(id)) continue;
      if (!shown.has(id) && sentLower.includes(id)) continue;
      problems.push(`the answer to company ${actor.name} shows company ${other.name}'s id ${id}`);
    }
    for (const item of (safeParse(refusedItems) as { id?: string; error?: string }[] | undefined) ?? [])
      if (item.id && other.ids.has(item.id.toLowerCase()) && item.error !== "not found")
        problems.push(
          `a bulk answer refused company ${other.name}'s ${item.id} otherwise than an unknown id: ${item.error}`,
        );
    if (status >= 200 && status < 300) {
      for (const id of foreignInPathOrBody)
        if (!refused.has(id)) problems.push(`a success for a request naming company ${other.name}'s record ${id}`);
      if (c.auth === "admin" || c.auth === "member") for (const id of shown) if (!other.ids.has(id)) actor.ids.add(id);
    }
    const pathIsForeign = pathId !== undefined && foreignInPathOrBody.has(pathId.toLowerCase());
    // A rule between parameters refuses before any record is read, so its 400 tells nothing of whose record it is.
    if (
      c.flavour === "cross" &&
      spec.method === "get" &&
      pathIsForeign &&
      status !== 404 &&
      !refusedByParameterRule(c, status)
    ) {
      problems.push(
        `reading company ${other.name}'s record ${pathId} with company ${actor.name}'s token answered ${status}, not 404`,
      );
    }
    return problems;
  }
}

/** Query parameters checked against each other or against the service's secret, beyond their schemas (`page` against `limit`: docs/api.md#paging). */
const CROSS_CHECKED = ["cursor", "from", "to", "page"];

/** A 400 that a rule between query parameters may answer (a signed cursor, `from` after `to`), which no schema states. */
const refusedByParameterRule = (c: FuzzCase, status: number): boolean =>
  status === 400 && c.query.some((part) => "key" in part && CROSS_CHECKED.includes(part.key));

/** What the document cannot say but the contract does: a list's page, and reading one's own record. */
function semanticProblems(c: FuzzCase, spec: OperationSpec, status: number, text: string): string[] {
  const problems: string[] = [];
  // Every id a valid case reads is of a record of its own company (records are never deleted).
  // Only a rule between parameters, which no schema states (a signed cursor, `from` after `to`), may refuse one.
  if (
    c.flavour === "valid" &&
    spec.method === "get" &&
    spec.pathKind &&
    status !== 200 &&
    !refusedByParameterRule(c, status)
  ) {
    problems.push(`reading the company's own record answered ${status}, not 200`);
  }
  const data = status === 200 ? (safeParse(text) as { data?: Record<string, unknown> } | undefined)?.data : undefined;
  if (data && typeof data.limit === "number") {
    for (const [key, value] of Object.entries(data)) {
      if (!Array.isArray(value)) continue;
      if (value.length > data.limit) problems.push(`a page of ${value.length} ${key} over its limit ${data.limit}`);
      if (typeof data.counter === "number" && data.counter < value.length)
        problems.push(`counter ${data.counter} below the ${value.length} ${key} listed`);
    }
  }
  return problems;
}

/** A success's records and its debug notes, as text apart; an error is all notes. */
function splitNotes(text: string, status: number): { records: string; notes: string; refusedItems: string } {
  if (status >= 400) return { records: "", notes: text, refusedItems: "" };
  const body = safeParse(text);
  if (!body || typeof body !== "object") return { records: text, notes: "", refusedItems: "" };
  const { debug, results, ...rest } = body as Record<string, unknown>;
  // A bulk answer's per-item refusals repeat the ids sent, as an error does; the items it changed are records.
  const items = Array.isArray(results) ? (results as unknown[]) : [];
  const refused = items.filter(isRefusedItem);
  const records = {
    ...rest,
    ...(results !== undefined ? { results: items.filter((item) => !isRefusedItem(item)) } : {}),
  };
  return {
    records: JSON.stringify(records),
    notes: debug === undefined ? "" : JSON.stringify(debug),
    refusedItems: refused.length > 0 ? JSON.stringify(refused) : "",
  };
}

/** An item of a bulk answer the service refused (`{ id, status: "failed", error }`). */
const isRefusedItem = (item: unknown): boolean =>
  typeof item === "object" && item !== null && (item as { status?: unknown }).status === "failed";

/** Whether the company's admin token is still honoured as an admin's. */
async function adminPowerHeld(company: FuzzCompany): Promise<boolean> {
  try {
    return await isAdmin(await principalOf(await verifyAccessToken(company.adminToken)));
  } catch {
    return false;
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

const short = (text: string, max: number) =>
  text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;

// ---------------------------------------------------------------------------------------------
// A run and its figures

interface Failure {
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
  /** How many times the run's admin lost its power through the API and another admin took over. */
  adminHandOvers: number;
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
    adminHandOvers: 0,
  };
  const failures = new Map<string, Failure>();
  await fuzzer.seedOtherKinds(options.seed);
  const arbitraries = new CaseArbitraries(fuzzer.specs, fuzzer.world);
  const run = async (c: FuzzCase) => {
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
    report.adminHandOvers = fuzzer.adminHandOvers;
    options.onCase?.(report, outcome);
  };
  // One valid case of each operation first, so that every success path runs whatever the random
  // draws give each operation below (their share shrinks as operations are added).
  const first = Math.min(options.runs, fuzzer.specs.length);
  for (let op = 0; op < first; op++) {
    const [c] = fc.sample(arbitraries.ofFlavour(op, "valid"), { seed: options.seed + op, numRuns: 1 });
    await run(c);
  }
  // Every case runs (the property holds whatever the answer): failures are collected, not shrunk,
  // so one run reports every kind of failure with its first counterexample.
  if (options.runs > first)
    await fc.assert(fc.asyncProperty(arbitraries.all(), run), {
      seed: options.seed,
      numRuns: options.runs - first,
      endOnFailure: true,
    });
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
  lines.push(
    `API fuzz: ${report.runs} cases, seed ${report.seed}, ${seconds.toFixed(1)} s (${(report.runs / Math.max(seconds, 0.001)).toFixed(0)} cases/s)`,
  );
  lines.push(`Kinds of case: ${[...report.byFlavour].map(([flavour, n]) => `${flavour} ${n}`).join(", ")}`);
  if (report.adminHandOvers > 0)
    lines.push(
      `The run's admin lost its admin power through the API ${report.adminHandOvers} time(s); another active admin of its company took over.`,
    );
  lines.push("");
  lines.push("Cases, mean time and statuses per operation:");
  const width = Math.max(...[...report.byOperation.keys()].map((key) => key.length));
  for (const [key, { cases, ms, statuses }] of report.byOperation) {
    const seen = [...statuses]
      .sort(([a], [b]) => a - b)
      .map(([status, n]) => `${status}×${n}`)
      .join(" ");
    const mean = cases > 0 ? `${(ms / cases).toFixed(1)} ms` : "-";
    lines.push(`  ${key.padEnd(width)}  ${String(cases).padStart(7)}  ${mean.padStart(9)}  ${seen}`);
  }
  lines.push("");
  lines.push(
    `Hostile values sent (cases holding each): ${[...report.labels]
      .sort(([, a], [, b]) => b - a)
      .slice(0, 40)
      .map(([label, n]) => `${label} ×${n}`)
      .join("; ")}`,
  );
  lines.push("");
  if (report.failures.length === 0) {
    lines.push("Failures: none.");
  } else {
    lines.push(
      `Failures: ${report.failures.length} kinds, ${report.failures.reduce((sum, failure) => sum + failure.count, 0)} cases.`,
    );
    for (const failure of report.failures) {
      lines.push("");
      lines.push(`✗ ${failure.signature} (${failure.count} cases)`);
      for (const problem of failure.problems) lines.push(`    ${short(problem, 500)}`);
      lines.push(
        failure.exchange
          .split("\n")
          .map((line) => `    ${line}`)
          .join("\n"),
      );
    }
  }
  return lines.join("\n");
}
