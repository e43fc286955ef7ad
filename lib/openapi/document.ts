/**
 * The OpenAPI 3.1 document of the `/v2` API, built from the operations the resources' contracts
 * declare (./operations): each one's path, query and body schemas, Admin rule and success answer,
 * and the records and error body of lib/schemas. No schema is written twice: every one is
 * converted from the zod schema the route validates with.
 */
import { AnswerList, RecordedResponse, SurveyResults } from "@/lib/answers/contract";
import { z } from "zod";
import { METHODS, type Method, type Operation } from "@/lib/http/contract";
import { AccessTokenResponse } from "@/lib/schemas/auth";
import { ErrorBody, type ErrorCode, isoDateTime, Notification, objectId } from "@/lib/schemas/common";
import {
  AccessRoleList,
  AccessRoleRecord,
  BotList,
  BotRecord,
  JobTitleList,
  JobTitleRecord,
  PropertyList,
  PropertyRecord,
} from "@/lib/schemas/reference";
import { QuestionRecord, SurveyChatRecord, SurveyList, SurveyRecord, SurveyRevisionList, SurveyRevisionRecord } from "@/lib/surveys/contract";
import { OutboxList, OutboxMailRecord } from "@/lib/schemas/outbox";
import { UserList, UserRecord } from "@/lib/users/contract";
import { STATUS_OF_CODE } from "@/lib/server/errors";
import { PATHS } from "./operations";
import "./annotations";
import { OpenApiDocumentSchema } from "./document-schema";
import { convert, convertRegistry, isOptional, type JsonSchema, parameterSchema, withExplicitTypes } from "./schema";

export type OpenApiDocument = {
  openapi: string;
  info: Record<string, unknown>;
  paths: Record<string, Partial<Record<Method, OperationObject>>>;
  components: Record<string, Record<string, unknown>>;
  [key: string]: unknown;
};

export type OperationObject = {
  operationId: string;
  responses: Record<string, { content?: Record<string, { schema: JsonSchema }>; headers?: Record<string, { $ref?: string; required?: boolean }> }>;
  [key: string]: unknown;
};

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });
const schemaUri = (id: string) => `#/components/schemas/${id}`;

/** Values and records that appear in several answers: one component each. */
const SHARED: [z.ZodType, string][] = [
  [objectId, "ObjectId"],
  [isoDateTime, "DateTime"],
  [UserRecord, "User"],
  [SurveyRecord, "Survey"],
  [SurveyChatRecord, "SurveyChat"],
  [QuestionRecord, "Question"],
  [SurveyRevisionRecord, "SurveyRevision"],
  [AccessRoleRecord, "AccessRole"],
  [JobTitleRecord, "JobTitle"],
  [PropertyRecord, "Property"],
  [BotRecord, "Bot"],
  [OutboxMailRecord, "OutboxMail"],
  [Notification, "Notification"],
  [ErrorBody, "Error"],
];

/** What the reference shows for values whose schema is only a pattern. */
const EXAMPLES: Record<string, { description: string; examples: string[] }> = {
  ObjectId: { description: "A record id: 24 hexadecimal digits.", examples: ["6650f1c2a9d3e4b5c6d7e8f9"] },
  DateTime: { description: "ISO 8601, UTC, with milliseconds.", examples: ["2026-01-31T08:15:00.000Z"] },
};

/** Names of the answers (with the `debug` array every answer may carry). */
const ANSWERS: [z.ZodObject, string][] = [
  [UserRecord, "UserAnswer"],
  [UserList, "UserList"],
  [SurveyRecord, "SurveyAnswer"],
  [SurveyList, "SurveyList"],
  [SurveyRevisionList, "SurveyRevisionList"],
  [RecordedResponse, "RecordedResponse"],
  [AnswerList, "AnswerList"],
  [SurveyResults, "SurveyResults"],
  [AccessRoleRecord, "AccessRoleAnswer"],
  [AccessRoleList, "AccessRoleList"],
  [JobTitleRecord, "JobTitleAnswer"],
  [JobTitleList, "JobTitleList"],
  [PropertyRecord, "PropertyAnswer"],
  [PropertyList, "PropertyList"],
  [BotRecord, "BotAnswer"],
  [BotList, "BotList"],
  [OutboxList, "OutboxList"],
  [AccessTokenResponse, "AccessToken"],
  [OpenApiDocumentSchema, "OpenApiDocument"],
];

/** Why each error code is answered (docs/api.md#errors). */
const WHEN: Record<ErrorCode, string> = {
  invalid_json: "the body is not JSON",
  invalid_request: "a query parameter or body field fails validation; `details` names every bad field",
  invalid_id: "the id in the path is not a 24-hex ObjectId",
  immutable_field: "the update changes `email`",
  unknown_reference: "an id in the body names no record of the caller's company",
  unauthorized: "no, malformed, expired or revoked bearer token, or the token of a deactivated user",
  admin_required: "the request lacks the header `Admin: true`",
  forbidden: "`Admin: true` was sent by a user holding no admin access role; the caller may not change the fields `details` names (a user's account-wide fields); on sign-in, a browser request from another site's page; the caller's access roles may not answer the survey, or read its answers and results",
  not_found: "no record with this id is visible to the caller's company",
  method_not_allowed: "the path has no such method; `Allow` lists those it has",
  conflict: "a record with these unique values already exists; the change or answer contradicts the state of the survey (an answered question's type, an inactive survey)",
  payload_too_large: "the body is over 1 MiB",
  unsupported_media_type: "a body without `Content-Type: application/json`",
  rate_limited: "over the request rate; `Retry-After` says when to retry",
  internal: "anything else: a generic message, logged with the request id",
  service_unavailable: "the database does not answer (stopped or restarting); `Retry-After` says when to retry",
};

const DESCRIPTION = `
The \`/v2\` API of the users and surveys service. JSON bodies in UTF-8.

**Authentication.** Every \`/v2\` request carries \`Authorization: Bearer <token>\`: a signed JWT
(HS256) naming the user and the company it acts in. An external system gets one from the command
line, \`npm run --silent token -- --email <email> [--ttl 30d]\`, or from \`POST /api/auth/login\`.
Every record belongs to a company; another company's records are never read, counted or changed:
they are simply \`404\`. A token stops working when it is revoked (\`npm run --silent token -- --revoke <id>\`
with the id it was issued with, or \`--revoke-all --email <email>\`), when its user's password
changes, or when its user is deactivated in its company; every server process refuses it within 5
seconds.

**Admin.** Operations that list the \`Admin\` header (every change of a record, survey reads and
revisions, the outbox) need \`Admin: true\`, honoured only for a user holding an access role with
\`isAdmin: true\`.

**Answers.** A single record is the body itself; a list is
\`{ "data": { "<records>": [...], "page": 1, "limit": 10, "counter": 37 } }\` (\`counter\` only with
\`count=true\`). A create answers \`201\` with a \`Location\` header. Ids are 24-hex strings and
dates ISO 8601 with milliseconds and \`Z\` (\`2026-01-31T08:15:00.000Z\`). Every answer has an
\`X-Request-Id\` header (a valid incoming one is echoed).

**Text.** Single-line text (names, titles, phone, e-mail, search words) is trimmed and may not hold
control characters or line breaks: \`400 invalid_request\` names the field.

**Query parameters.** List parameters are repeated (\`?id=a&id=b\`); a comma-separated value is
split too. Unknown parameters are ignored.

**debug.** \`debug=true\` adds a top-level \`debug\` array of notifications
(\`{ level, code, message, path? }\`) to any answer, success or error; each unknown query parameter
and each ignored body field gives a warning.

**Errors.** \`{ "error": { "status", "code", "message", "details"?: [{ "path", "message" }], "requestId" } }\`
with the codes listed on each operation.
`.trim();

let cached: OpenApiDocument | undefined;

/** The document, built once per process. */
export function openApiDocument(): OpenApiDocument {
  cached ??= buildDocument();
  return cached;
}

export function buildDocument(): OpenApiDocument {
  const components = z.registry<{ id: string }>();
  for (const [schema, id] of SHARED) components.add(schema, { id });
  const answers = new Map<z.ZodType, string>();
  /** The component of an operation's answer, registered on first use. */
  const answer = (schema: z.ZodObject, path: string): string => {
    let id = answers.get(schema);
    if (!id) {
      id = ANSWERS.find(([known]) => known === schema)?.[1];
      if (!id) throw new Error(`The answer of ${path} has no name in ANSWERS of lib/openapi/document.ts`);
      components.add(schema.extend({ debug: z.array(Notification).optional() }), { id });
      answers.set(schema, id);
    }
    return id;
  };

  const paths: OpenApiDocument["paths"] = {};
  for (const [path, operations] of PATHS) {
    const item: Partial<Record<Method, OperationObject>> = {};
    for (const method of METHODS) {
      const operation = operations[method];
      if (!operation) continue;
      const response = operation.doc.response ? answer(operation.doc.response, path) : undefined;
      item[method] = describe(path, operationIdOf(method, path), operation, response);
    }
    paths[path] = item;
  }

  const schemas = withExamples(convertRegistry(components, "output", schemaUri));
  const component = (uri: string) => (uri.startsWith(schemaUri("")) ? schemas[uri.slice(schemaUri("").length)] : undefined);
  return withExplicitTypes({
    openapi: "3.1.1",
    info: { title: "Users & Surveys API", version: "2", description: DESCRIPTION },
    servers: [{ url: "/", description: "This server" }],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: "Users", description: "The company's users: people and bots." },
      { name: "Surveys", description: "The company's surveys and their revisions." },
      { name: "Reference data", description: "Access roles, job titles, properties and bots that users and surveys refer to." },
      { name: "Authentication", description: "Obtaining an access token (outside `/v2`)." },
      { name: "Outbox", description: "E-mails kept instead of sent while no SMTP server is configured." },
      { name: "Documentation", description: "This document." },
    ],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "JWT",
          description: "An access token from `npm run --silent token -- --email <email>` or `POST /api/auth/login`.",
        },
      },
      parameters: {
        Admin: {
          name: "Admin",
          in: "header",
          required: true,
          description: "`true`; honoured only for a user holding an access role with `isAdmin: true`.",
          schema: { type: "string", enum: ["true"] },
        },
        AdminOptional: {
          name: "Admin",
          in: "header",
          required: false,
          description: "`true` reads as an admin (honoured only for a user holding an access role with `isAdmin: true`); without it, the caller's access roles decide.",
          schema: { type: "string", enum: ["true"] },
        },
        debug: {
          name: "debug",
          in: "query",
          required: false,
          description: "`true` adds a `debug` array of notifications to the answer, success or error.",
          schema: { type: "boolean", default: false },
        },
      },
      headers: {
        "X-Request-Id": {
          required: true,
          description: "The request's id: the incoming `X-Request-Id` when valid (`[A-Za-z0-9_.:-]{1,128}`), else a new UUID.",
          schema: { type: "string" },
        },
        Location: { required: true, description: "The path of the created record.", schema: { type: "string" } },
        "Retry-After": { required: true, description: "Seconds until a request will be accepted again.", schema: { type: "integer", minimum: 1 } },
        "Set-Cookie": { description: "The httpOnly, SameSite=Strict session cookie of the admin pages.", schema: { type: "string" } },
      },
      schemas,
    },
  }, component);
}

function withExamples(schemas: Record<string, JsonSchema>): Record<string, JsonSchema> {
  for (const [id, extra] of Object.entries(EXAMPLES)) Object.assign(schemas[id], extra);
  return schemas;
}

function describe(
  path: string,
  operationId: string,
  options: Operation,
  response: string | undefined,
): OperationObject {
  const { doc: operation, authenticated } = options;
  const parameters: unknown[] = [];
  for (const [name, field] of Object.entries(options.params?.shape ?? {})) {
    parameters.push({ name, in: "path", required: true, schema: parameterSchema(field as z.ZodType) });
  }
  for (const [name, field] of Object.entries(options.query?.shape ?? {})) {
    const extra = operation.parameters?.[name];
    const schema = parameterSchema(field as z.ZodType);
    if (extra?.items) schema.items = { ...(schema.items as JsonSchema), ...extra.items };
    parameters.push({
      name,
      in: "query",
      required: !isOptional(field as z.ZodType),
      ...(extra?.description ? { description: extra.description } : {}),
      ...(schema.type === "array" ? { style: "form", explode: true } : {}),
      schema,
    });
  }
  parameters.push(ref("parameters", "debug"));
  if (options.admin) parameters.push(ref("parameters", "Admin"));
  else if (operation.adminOptional) parameters.push(ref("parameters", "AdminOptional"));

  const successHeaders: Record<string, unknown> = { "X-Request-Id": ref("headers", "X-Request-Id") };
  if (operation.status === 201) successHeaders.Location = ref("headers", "Location");
  if (operation.setsCookie) successHeaders["Set-Cookie"] = ref("headers", "Set-Cookie");

  return {
    tags: [operation.tag],
    summary: operation.summary,
    ...(operation.description ? { description: operation.description } : {}),
    operationId,
    ...(authenticated ? {} : { security: [] }),
    parameters,
    ...(options.body ? { requestBody: requestBody(options.body, options.ignoreBodyFields ?? []) } : {}),
    responses: {
      [operation.status]: {
        description: successDescription(operation.status),
        headers: successHeaders,
        ...(response ? { content: { "application/json": { schema: { $ref: schemaUri(response) } } } } : {}),
        ...(operation.csv ? { content: { "text/csv": { schema: { type: "string" } } } } : {}),
      },
      ...errorResponses(errorCodes(options)),
    },
  };
}

function requestBody(schema: z.ZodType, ignored: readonly string[]) {
  const json = convert(schema, "input");
  if (ignored.length > 0 && json.type === "object") {
    const properties = (json.properties ?? {}) as Record<string, unknown>;
    for (const field of ignored) {
      properties[field] ??= { description: "Set by the service: a value sent is ignored, with a debug warning." };
    }
    json.properties = properties;
  }
  return { required: true, content: { "application/json": { schema: json } } };
}

function errorCodes(options: Operation): ErrorCode[] {
  const { doc: operation, authenticated } = options;
  const codes = new Set<ErrorCode>(["invalid_request", "rate_limited", "internal", "service_unavailable"]);
  if (authenticated) codes.add("unauthorized");
  if (options.admin) {
    codes.add("admin_required");
    codes.add("forbidden");
  }
  if (options.params) {
    codes.add("invalid_id");
    codes.add("not_found");
  }
  if (options.body) {
    codes.add("invalid_json");
    codes.add("payload_too_large");
    codes.add("unsupported_media_type");
  }
  for (const code of operation.errors ?? []) codes.add(code);
  return [...codes];
}

function errorResponses(codes: ErrorCode[]): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(STATUS_OF_CODE[code], [...(byStatus.get(STATUS_OF_CODE[code]) ?? []), code]);
  const answers: Record<string, unknown> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    answers[status] = {
      description: list.map((code) => `\`${code}\`: ${WHEN[code]}.`).join(" "),
      headers: {
        "X-Request-Id": ref("headers", "X-Request-Id"),
        ...(list.includes("rate_limited") || list.includes("service_unavailable") ? { "Retry-After": ref("headers", "Retry-After") } : {}),
      },
      content: {
        "application/json": {
          schema: {
            type: "object",
            allOf: [{ $ref: schemaUri("Error") }],
            properties: {
              error: { type: "object", properties: { status: { type: "integer", const: status }, code: { type: "string", enum: list } } },
            },
          },
        },
      },
    };
  }
  return answers;
}

function successDescription(status: number): string {
  if (status === 201) return "Created; `Location` names the new record.";
  if (status === 204) return "Done; no body.";
  return "OK";
}

/** `get /v2/users/{id}/revisions` → `getUsersIdRevisions`. */
function operationIdOf(method: Method, path: string): string {
  const words = path
    .replace(/^\/(v2|api)\//, "")
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  return method + words.map(capitalise).join("");
}

const capitalise = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);
