/**
 * What the API fuzzer (./fuzz.ts) works on: every operation of the OpenAPI document with the
 * handler its route file binds to it (./routes.ts), and two seeded companies whose records the
 * requests name.
 */
import { type Method, METHODS } from "@/lib/base/schemas/operation";
import type { RouteHandler } from "@/lib/platform/http/binding";
import { openApiDocument, type OpenApiDocument, type OperationObject } from "@/lib/platform/openapi/document";
import type { JsonSchema } from "@/lib/platform/openapi/schema";
import { ready } from "@/lib/platform/startup/ready";
import { createApiToken } from "@/lib/resources/auth/service";
import { createCompany } from "@/lib/resources/spanning/companies";
import { boundHandlers } from "./routes";
import { FUZZ_WEBHOOK_ORIGIN, ID_KINDS, type IdKind } from "./values";

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
  /** The media type of a file body (an import) the operation takes instead of JSON. */
  upload?: string;
}

/** The records of a path's resource: `/v2/access-roles/{id}` → `accessRoles`. */
const kindOfPath = (path: string): IdKind =>
  (path.split("/")[2] ?? "").replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());

/** Every operation of the document, with the handler its route file binds to it. */
export async function operationSpecs(document: OpenApiDocument = openApiDocument()): Promise<OperationSpec[]> {
  const handlers = await boundHandlers();
  const specs: OperationSpec[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item?.[method] as
        | (OperationObject & {
            parameters?: unknown[];
            security?: unknown[];
            requestBody?: { content: Record<string, { schema: JsonSchema }> };
          })
        | undefined;
      if (!operation) continue;
      const handler = handlers.get(`${method.toUpperCase()} ${path}`);
      if (!handler) throw new Error(`${method.toUpperCase()} ${path} has no handler bound to its operation`);
      const parameters = (operation.parameters ?? []).map((parameter) => resolveParameter(document, parameter));
      const kind = kindOfPath(path);
      specs.push({
        key: `${method.toUpperCase()} ${path}`,
        path,
        method,
        handler,
        authenticated: !(Array.isArray(operation.security) && operation.security.length === 0),
        admin: parameters.some((parameter) => parameter.in === "header" && parameter.name === "Admin"),
        pathKind: path.includes("{id}") ? kind : undefined,
        createsKind: method === "post" && operation.responses["201"] ? kind : undefined,
        query: parameters
          .filter((parameter) => parameter.in === "query" && parameter.name !== "debug")
          .map((parameter) => ({
            name: parameter.name,
            schema: parameter.schema,
            array: parameter.schema.type === "array",
          })),
        body: operation.requestBody?.content["application/json"]?.schema,
        upload: Object.keys(operation.requestBody?.content ?? {}).find((type) => type !== "application/json"),
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
  /** The questions of each survey whose content is known: an answer names one of its survey's. */
  questionsOf: Map<string, string[]>;
  /** The records made under a record's path (a webhook's deliveries), for a second id in a path. */
  childrenOf: Map<string, string[]>;
}

export interface FuzzWorld {
  a: FuzzCompany;
  b: FuzzCompany;
}

const POOL_SIZE = 200;

/** Two companies, each with an admin (with a password), a member and a few records of each kind. */
export async function seedWorld(specs: OperationSpec[]): Promise<FuzzWorld> {
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
    questionsOf: new Map(),
    childrenOf: new Map(),
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
  await post("/v2/users", {
    email: `fuzz.other.${name.toLowerCase()}.${suffix}@example.com`,
    accessRoles: [created.memberRoleId],
    job: company.pools.jobTitles[0],
  });
  company.memberToken = (await createApiToken(memberEmail, 86_400, company.id)).accessToken;
  // A job of the company, for GET /v2/jobs/{id}: a dry run, which changes nothing.
  const importing = specs.find((candidate) => candidate.key === "POST /v2/users/import")!;
  const imported = await importing.handler(
    new Request(new URL("/v2/users/import?dryRun=true", "http://localhost"), {
      method: "POST",
      headers: { authorization: `Bearer ${company.adminToken}`, admin: "true", "content-type": "text/csv" },
      body: `email,accessRoles\n${memberEmail},Member\n`,
    }),
    { params: Promise.resolve({}) },
  );
  if (imported.status !== 202)
    throw new Error(`Seeding an import answered ${imported.status}: ${await imported.text()}`);
  remember(company, "jobs", ((await imported.json()) as { _id: string })._id);
  for (const n of [1, 2, 3]) await post("/v2/api-keys", { name: `Key ${n}`, scopes: ["users:read"] });
  // Webhooks to a host the fuzz run allows (nothing delivers during it), each with a queued test delivery.
  const sendTest = specs.find((candidate) => candidate.key === "POST /v2/webhooks/{id}/test")!;
  for (const n of [1, 2]) {
    const id = await post("/v2/webhooks", { url: `${FUZZ_WEBHOOK_ORIGIN}/seeded/${n}`, events: ["user.*"] });
    const response = await sendTest.handler(
      new Request(new URL(`/v2/webhooks/${id}/test`, "http://localhost"), {
        method: "POST",
        headers: { authorization: `Bearer ${company.adminToken}`, admin: "true" },
      }),
      { params: Promise.resolve({ id }) },
    );
    const delivery = (await response.json()) as { _id?: string };
    if (response.status !== 200 || !delivery._id)
      throw new Error(`Seeding a test delivery of webhook ${id} answered ${response.status}`);
    rememberChild(company, id, delivery._id);
  }
  // Both roles may answer and read the answers of either version; each survey has a text question.
  const roles = [created.adminRoleId, created.memberRoleId];
  const putContent = specs.find((candidate) => candidate.key === "PUT /v2/surveys/{id}/content")!;
  for (const n of [1, 2]) {
    const id = await post("/v2/surveys", {
      code: `survey_${n}`,
      name: `Survey ${n}`,
      version: n,
      permissions: roles,
      permissionsV2: roles.map((accessRole) => ({ accessRole, canAnswer: true, canViewAnswers: true })),
    });
    const response = await putContent.handler(
      new Request(new URL(`/v2/surveys/${id}/content`, "http://localhost"), {
        method: "PUT",
        headers: { authorization: `Bearer ${company.adminToken}`, admin: "true", "content-type": "application/json" },
        body: JSON.stringify({ chat: [{ name: "Chat", questions: [{ text: "Anything?", type: "text" }] }] }),
      }),
      { params: Promise.resolve({ id }) },
    );
    const survey = (await response.json()) as { chat?: { _id: string; questions: { _id: string; type: string }[] }[] };
    if (response.status !== 200 || !survey.chat)
      throw new Error(`Seeding the content of survey ${id} answered ${response.status}`);
    rememberContent(company, id, survey.chat);
  }
  return company;
}

/**
 * The questions a survey's content now holds (after its seeding, or a replacement that succeeded);
 * its text questions are the ones a valid answer names, since any short string answers them.
 */
export function rememberContent(
  company: FuzzCompany,
  surveyId: string,
  chat: { questions: { _id: string; type?: string }[] }[],
): void {
  const questions = chat.flatMap((each) => each.questions);
  for (const question of questions) remember(company, "questions", question._id);
  company.questionsOf.set(
    surveyId,
    questions.filter((question) => question.type === "text").map((question) => question._id),
  );
}

/** A record made under `parent`'s path, named by a second id in a path of it. */
export function rememberChild(company: FuzzCompany, parent: string, id: string): void {
  company.ids.add(id);
  const children = company.childrenOf.get(parent.toLowerCase()) ?? [];
  company.childrenOf.set(parent.toLowerCase(), [...children, id].slice(-POOL_SIZE));
}

/** A record deleted: requests no longer name it as one that exists. */
export function forget(company: FuzzCompany, kind: IdKind, id: string): void {
  const pool = company.pools[kind];
  if (pool) company.pools[kind] = pool.filter((each) => each.toLowerCase() !== id.toLowerCase());
}

export function remember(company: FuzzCompany, kind: IdKind, id: string): void {
  company.ids.add(id);
  const pool = (company.pools[kind] ??= []);
  // Past the pool's size, a new record replaces one in a fixed rotation (the run stays reproducible).
  if (pool.length < POOL_SIZE) pool.push(id);
  else pool[company.ids.size % POOL_SIZE] = id;
}
