/**
 * The OpenAPI 3.1 document of the `/v2` API, built from the operations the resources' contracts
 * declare (./operations): each one's path, query and body schemas, Admin rule and success answer,
 * the records and answers under the names each contract exports as `components`, and the error
 * body of lib/base/schemas. No schema is written twice: every one is converted from the zod schema the
 * route validates with.
 */
import { loadConfig } from "@/lib/base/config";
import { ErrorBody, type ErrorCode, isoDateTime, Notification, objectId } from "@/lib/base/schemas/common";
import { type ComponentNames, type Method, METHODS, type Operation } from "@/lib/base/schemas/operation";
import { SCOPE_DESCRIPTIONS } from "@/lib/base/schemas/scopes";
import { STATUS_OF_CODE } from "@/lib/kernel/errors";
import { CONTRACTS } from "@/lib/resources";
import { z } from "zod";
import "./annotations";
import { PATHS } from "./operations";
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
  responses: Record<
    string,
    {
      description?: string;
      content?: Record<string, { schema: JsonSchema }>;
      headers?: Record<string, { $ref?: string; required?: boolean }>;
    }
  >;
  [key: string]: unknown;
};

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });
const schemaUri = (id: string) => `#/components/schemas/${id}`;

/** The names the resources' contracts give their schemas (lib/resources/index.ts, in its order). */
const NAMED: ComponentNames[] = CONTRACTS.flatMap((contract) => (contract.components ? [contract.components] : []));

/** Values and records that appear in several answers: one component each. */
const SHARED: [z.ZodType, string][] = [
  [objectId, "ObjectId"],
  [isoDateTime, "DateTime"],
  ...NAMED.flatMap((names) =>
    Object.entries(names.records ?? {}).map(([id, schema]): [z.ZodType, string] => [schema, id]),
  ),
  [Notification, "Notification"],
  [ErrorBody, "Error"],
];

/** What the reference shows for values whose schema is only a pattern. */
const EXAMPLES: Record<string, { description: string; examples: string[] }> = {
  ObjectId: { description: "A record id: 24 hexadecimal digits.", examples: ["6650f1c2a9d3e4b5c6d7e8f9"] },
  DateTime: { description: "ISO 8601, UTC, with milliseconds.", examples: ["2026-01-31T08:15:00.000Z"] },
};

/** Names of the answers (with the `debug` array every answer may carry). */
const ANSWERS: [z.ZodObject, string][] = NAMED.flatMap((names) =>
  Object.entries(names.answers ?? {}).map(([id, schema]): [z.ZodObject, string] => [schema, id]),
);

/** Why each error code is answered (docs/api.md#errors). */
const WHEN: Record<ErrorCode, string> = {
  invalid_json: "the body is not JSON",
  invalid_request: "a query parameter or body field fails validation; `details` names every bad field",
  invalid_id: "the id in the path is not a 24-hex ObjectId",
  immutable_field: "the update changes `email`",
  unknown_reference: "an id in the body names no record of the caller's company",
  unauthorized: "no, malformed, expired or revoked bearer token, or the token of a deactivated user",
  admin_required: "the request lacks the header `Admin: true`",
  insufficient_scope: "the API key lacks the scope the operation needs; the message and `WWW-Authenticate` name it",
  request_in_progress: "a request with this `Idempotency-Key` is still running",
  idempotency_key_reused:
    "this `Idempotency-Key` was used by the caller with another method, path or body within 24 hours",
  forbidden:
    "`Admin: true` was sent by a user holding no admin access role; the caller may not change the fields `details` names (a user's account-wide fields); on sign-in, a browser request from another site's page; the caller's access roles may not answer the survey, or read its answers and results",
  not_found: "no record with this id is visible to the caller's company",
  method_not_allowed: "the path has no such method; `Allow` lists those it has",
  conflict:
    "a record with these unique values already exists; the change or answer contradicts the state of the survey (an answered question's type, an inactive survey); an import past its company's 200 MiB of unfinished imports",
  precondition_failed:
    "`If-Match` names no current tag of the record: it changed since it was read; nothing was changed, and `ETag` is the current tag",
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

**API keys.** An external system may send an API key instead (\`Authorization: Bearer usk_…\`,
from \`POST /v2/api-keys\`): it acts for its company, within its scopes; each operation names the
scope it needs (the \`apiKey\` security requirement), and a key without it gets \`403 insufficient_scope\`.
A revoked or expired key is refused (\`401\`) by every server process within 5 seconds.

**Admin.** Operations that list the \`Admin\` header (every change of a record, survey reads and
revisions, the outbox, API keys) need \`Admin: true\`, honoured only for a user holding an access role with
\`isAdmin: true\`, or for an API key holding the operation's scope. For a key, admin power itself
(granting or taking admin roles, a role's \`isAdmin\`, passwords, an admin's account) needs the scope
\`admin\` too, and an operation listing no \`apiKey\` requirement (the outbox) is not open to keys.

**Idempotent creates.** Every \`POST\` accepts \`Idempotency-Key\` (1 to 255 characters): a repeat by the
same caller within 24 hours with the same body gets the first answer again, with
\`Idempotent-Replayed: true\`, and nothing is done twice; another body is \`422 idempotency_key_reused\`, a
repeat while the first still runs \`409 request_in_progress\`. Error answers are not kept.

**Rate limits.** Every answer carries \`RateLimit-Limit\` (\`600, 600;w=60\`: requests per 60-second
window), \`RateLimit-Remaining\` and \`RateLimit-Reset\` (seconds until the window ends). The budget is
per user in a company (all their tokens) or per API key, under a ceiling for all the company's callers
together, kept across every server process; over either, \`429 rate_limited\` with \`Retry-After\`
equal to \`RateLimit-Reset\`, the headers describing the budget that refused.

**Answers.** A single record is the body itself; a list is
\`{ "data": { "<records>": [...], "page": 1, "limit": 10, "next": "…", "counter": 37 } }\` (\`counter\` only with
\`count=true\`; \`page\` only when paged by number).

**Cursor paging.** Every list takes \`cursor\` instead of \`page\`: the \`next\` of the page before
(\`null\` after the last page; the answer then has no \`Link\`, else \`Link: <next page>; rel="next"\`).
A walk by cursor returns every record that matches and is not changed meanwhile exactly once, and
each page costs what the first does. With \`orderBy=asc\` (users, by \`modifiedAt\`) a record changed
during the walk comes again after its change, so a sync loop misses no change. A cursor is opaque
and valid only for the list, filters and company it came from; any other is \`400 invalid_request\`.

**Conditional requests.** Every answer that is one user or one survey carries an \`ETag\`. A \`GET\`
with \`If-None-Match\` naming it answers \`304\` with no body; a \`PATCH\` with an \`If-Match\` that no
longer names it changes nothing and answers \`412 precondition_failed\` with the current \`ETag\`.

A create answers \`201\` with a \`Location\` header. Ids are 24-hex strings and
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
with the codes listed on each operation. A method a path does not have is \`405 method_not_allowed\`
(with \`Allow\`), and a path under \`/v2/\` or \`/api/\` that no operation has is \`404 not_found\`.
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
      if (!id) throw new Error(`The answer of ${path} has no name in the components its contract exports`);
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
  const component = (uri: string) =>
    uri.startsWith(schemaUri("")) ? schemas[uri.slice(schemaUri("").length)] : undefined;
  return withExplicitTypes(
    {
      openapi: "3.1.1",
      info: { title: "Users & Surveys API", version: "2", description: DESCRIPTION },
      // PUBLIC_URL, not the request's Host: the one origin clients are to call (docs/deployment.md#public_url).
      servers: [{ url: loadConfig().publicUrl, description: "This service (PUBLIC_URL)" }],
      security: [{ bearerAuth: [] }],
      tags: [
        { name: "Users", description: "The company's users: people and bots." },
        { name: "Surveys", description: "The company's surveys and their revisions." },
        {
          name: "Reference data",
          description: "Access roles, job titles, properties and bots that users and surveys refer to.",
        },
        { name: "Authentication", description: "Obtaining an access token (outside `/v2`)." },
        { name: "Outbox", description: "E-mails kept instead of sent while no SMTP server is configured." },
        { name: "API keys", description: "Keys of the company for external systems, each limited to its scopes." },
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
          apiKey: {
            type: "http",
            scheme: "bearer",
            bearerFormat: "usk_…",
            description: `An API key from \`POST /v2/api-keys\`, acting for its company. Each operation lists the scope a key needs:\n\n${Object.entries(
              SCOPE_DESCRIPTIONS,
            )
              .map(([scope, what]) => `- \`${scope}\`: ${what}`)
              .join("\n")}`,
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
            description:
              "`true` reads as an admin (honoured only for a user holding an access role with `isAdmin: true`); without it, the caller's access roles decide.",
            schema: { type: "string", enum: ["true"] },
          },
          "If-None-Match": {
            name: "If-None-Match",
            in: "header",
            required: false,
            description:
              "A tag from an earlier `ETag` (or several, comma-separated, or `*`): when it names the current tag the answer is `304` with no body. Compared exactly as sent.",
            schema: { type: "string" },
          },
          "If-Match": {
            name: "If-Match",
            in: "header",
            required: false,
            description:
              "The `ETag` the change is based on (or several, comma-separated): when none is the current tag, nothing is changed and the answer is `412 precondition_failed` with the current `ETag`. `*` matches any existing record. Compared exactly as sent: a weak tag (`W/…`, of a read with `populate=true`) never matches. Without it, a PATCH applies as before.",
            schema: { type: "string" },
          },
          debug: {
            name: "debug",
            in: "query",
            required: false,
            description: "`true` adds a `debug` array of notifications to the answer, success or error.",
            schema: { type: "boolean", default: false },
          },
          "Idempotency-Key": {
            name: "Idempotency-Key",
            in: "header",
            required: false,
            description:
              "Makes the create safe to retry: a repeat with the same key and body within 24 hours answers the first answer again (`Idempotent-Replayed: true`).",
            schema: { type: "string", minLength: 1, maxLength: 255 },
          },
        },
        headers: {
          "X-Request-Id": {
            required: true,
            description:
              "The request's id: the incoming `X-Request-Id` when valid (`[A-Za-z0-9_.:-]{1,128}`), else a new UUID.",
            schema: { type: "string" },
          },
          Location: { required: true, description: "The path of the created record.", schema: { type: "string" } },
          "Retry-After": {
            required: true,
            description: "Seconds until a request will be accepted again.",
            schema: { type: "integer", minimum: 1 },
          },
          "RateLimit-Limit": {
            required: true,
            description: "The caller's budget and its policy: `600, 600;w=60` is 600 requests per 60-second window.",
            schema: { type: "string", pattern: "^\\d+(, \\d+;w=\\d+)?$" },
          },
          "RateLimit-Remaining": {
            required: true,
            description: "Requests left in the window.",
            schema: { type: "integer", minimum: 0 },
          },
          "RateLimit-Reset": {
            required: true,
            description: "Seconds until the window ends; on a `429`, the same as `Retry-After`.",
            schema: { type: "integer", minimum: 1 },
          },
          "Idempotent-Replayed": {
            description: "`true` on an answer replayed for a repeated `Idempotency-Key`.",
            schema: { type: "string", enum: ["true"] },
          },
          "Set-Cookie": {
            description: "The httpOnly, SameSite=Strict session cookie of the admin pages.",
            schema: { type: "string" },
          },
          ETag: {
            required: true,
            description:
              "The record's entity tag, quoted: it changes whenever the stored record changes, and only then. Send it back in `If-Match` (PATCH) or `If-None-Match` (GET).",
            schema: { type: "string" },
          },
          Link: {
            description:
              'With a `next` cursor: `<the path and query of the next page>; rel="next"`, a reference relative to the request\'s URL.',
            schema: { type: "string" },
          },
        },
        schemas,
      },
    },
    component,
  );
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
  if (idempotent(options)) parameters.push(ref("parameters", "Idempotency-Key"));

  const successHeaders: Record<string, unknown> = {
    "X-Request-Id": ref("headers", "X-Request-Id"),
    ...RATE_LIMIT_HEADERS,
  };
  if (operation.status === 201 || operation.status === 202) successHeaders.Location = ref("headers", "Location");
  if (idempotent(options)) successHeaders["Idempotent-Replayed"] = ref("headers", "Idempotent-Replayed");
  if (operation.setsCookie) successHeaders["Set-Cookie"] = ref("headers", "Set-Cookie");
  if (operation.etag) successHeaders.ETag = ref("headers", "ETag");
  Object.assign(successHeaders, operation.headers ?? {});
  if (options.query?.shape[options.nextParam ?? "cursor"]) successHeaders.Link = ref("headers", "Link");
  if (operation.etag && options.method === "get") parameters.push(ref("parameters", "If-None-Match"));
  if (operation.etag && (options.method === "patch" || options.method === "put"))
    parameters.push(ref("parameters", "If-Match"));

  return {
    tags: [operation.tag],
    summary: operation.summary,
    ...(operation.description ? { description: operation.description } : {}),
    operationId,
    // An operation without a scope is not open to API keys: only the bearer token is listed.
    security: authenticated ? [{ bearerAuth: [] }, ...(options.scope ? [{ apiKey: [options.scope] }] : [])] : [],
    parameters,
    ...(options.body ? { requestBody: requestBody(options.body, options.ignoreBodyFields ?? []) } : {}),
    ...(operation.upload
      ? {
          requestBody: {
            required: true,
            description: operation.upload.description,
            content: Object.fromEntries(
              operation.upload.mediaTypes.map((type) => [type, { schema: { type: "string" } }]),
            ),
          },
        }
      : {}),
    responses: {
      [operation.status]: {
        description: successDescription(operation.status),
        headers: successHeaders,
        ...(response ? { content: { "application/json": { schema: { $ref: schemaUri(response) } } } } : {}),
        ...(operation.csv || operation.ndjson
          ? {
              content: {
                ...(operation.csv ? { "text/csv": { schema: { type: "string" } } } : {}),
                ...(operation.ndjson ? { "application/x-ndjson": { schema: { type: "string" } } } : {}),
              },
            }
          : {}),
      },
      ...(operation.etag && options.method === "get"
        ? {
            304: {
              description: "Not modified: `If-None-Match` names the current tag. No body.",
              headers: { "X-Request-Id": ref("headers", "X-Request-Id"), ETag: ref("headers", "ETag") },
            },
          }
        : {}),
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
  if (authenticated) {
    codes.add("unauthorized");
    codes.add("insufficient_scope");
  }
  if (idempotent(options)) {
    codes.add("request_in_progress");
    codes.add("idempotency_key_reused");
  }
  if (options.admin) {
    codes.add("admin_required");
    codes.add("forbidden");
  }
  if (options.params) {
    codes.add("invalid_id");
    codes.add("not_found");
  }
  if (options.doc.upload) {
    codes.add("payload_too_large");
    codes.add("unsupported_media_type");
  }
  if (options.body) {
    codes.add("invalid_json");
    codes.add("payload_too_large");
    codes.add("unsupported_media_type");
  }
  for (const code of operation.errors ?? []) codes.add(code);
  if (operation.etag && (options.method === "patch" || options.method === "put")) codes.add("precondition_failed");
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
        ...RATE_LIMIT_HEADERS,
        ...(list.includes("rate_limited") || list.includes("service_unavailable")
          ? { "Retry-After": ref("headers", "Retry-After") }
          : {}),
        ...(list.includes("precondition_failed") ? { ETag: ref("headers", "ETag") } : {}),
      },
      content: {
        "application/json": {
          schema: {
            type: "object",
            allOf: [{ $ref: schemaUri("Error") }],
            properties: {
              error: {
                type: "object",
                properties: { status: { type: "integer", const: status }, code: { type: "string", enum: list } },
              },
            },
          },
        },
      },
    };
  }
  return answers;
}

/** Every answer's rate-limit headers (docs/api.md#rate-limits). */
const RATE_LIMIT_HEADERS = {
  "RateLimit-Limit": ref("headers", "RateLimit-Limit"),
  "RateLimit-Remaining": ref("headers", "RateLimit-Remaining"),
  "RateLimit-Reset": ref("headers", "RateLimit-Reset"),
};

/** Whether the operation takes `Idempotency-Key`: every authenticated `POST`. */
const idempotent = (options: Operation) => options.authenticated && options.method === "post";

function successDescription(status: number): string {
  if (status === 201) return "Created; `Location` names the new record.";
  if (status === 202) return "Accepted: the work goes on after the answer; `Location` names the job to poll.";
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
