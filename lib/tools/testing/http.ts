/**
 * Test support for route handlers: calls an exported handler with a real `Request` (as Next.js
 * does) and checks its answer against the OpenAPI document (lib/platform/openapi), and creates companies
 * with admins and members holding real access tokens.
 */
import { ErrorBody, Notification } from "@/lib/base/schemas/common";
import { Notes } from "@/lib/kernel/notes";
import type { AnswerOf, RouteHandler } from "@/lib/platform/http/binding";
import { checkAnswer } from "@/lib/platform/openapi/testing";
import { ready } from "@/lib/platform/startup/ready";
import { createApiToken } from "@/lib/resources/auth/service";
import { createCompany } from "@/lib/resources/spanning/companies";
import { createUser } from "@/lib/resources/users/service";
import { z } from "zod";

export interface CallOptions {
  method?: string;
  token?: string;
  admin?: boolean | string;
  /** Serialised as JSON with `Content-Type: application/json`, unless `rawBody` is given. */
  body?: unknown;
  rawBody?: BodyInit;
  headers?: Record<string, string>;
  /** Path parameters, as Next.js passes them. */
  params?: Record<string, string>;
}

declare const succeeds: unique symbol;

export interface CallResult<A = unknown> {
  status: number;
  headers: Headers;
  /** The answer's JSON, as parsed: {@link success} and {@link failure} read it typed. */
  body: unknown;
  /** What a success answers (a type only). */
  readonly [succeeds]?: A;
}

/** An answer read whole as text (CSV, NDJSON), checked against the OpenAPI document as {@link call}'s are. */
export interface TextResult {
  status: number;
  headers: Headers;
  text: string;
}

export async function callText(handler: RouteHandler, path: string, options: CallOptions = {}): Promise<TextResult> {
  const headers = new Headers(options.headers);
  if (options.token) headers.set("authorization", `Bearer ${options.token}`);
  if (options.admin !== undefined && options.admin !== false)
    headers.set("admin", options.admin === true ? "true" : options.admin);
  let body: BodyInit | undefined = options.rawBody;
  if (body === undefined && options.body !== undefined) {
    body = JSON.stringify(options.body);
    if (!headers.has("content-type")) headers.set("content-type", "application/json");
  }
  const request = new Request(new URL(path, "http://localhost"), {
    method: options.method ?? (body === undefined ? "GET" : "POST"),
    headers,
    body,
  });
  const response = await handler(request, { params: Promise.resolve(options.params ?? {}) });
  const text = await response.text();
  checkAnswer(handler, {
    method: request.method,
    url: path,
    status: response.status,
    contentType: response.headers.get("content-type"),
    headers: response.headers,
    body: text,
  });
  return { status: response.status, headers: response.headers, text };
}

/** Calls a route handler; a handler bound to an operation (`handle`) answers its response schema's type on success. */
export async function call<H extends RouteHandler>(
  handler: H,
  path: string,
  options: CallOptions = {},
): Promise<CallResult<AnswerOf<H>>> {
  const { status, headers, text } = await callText(handler, path, options);
  return { status, headers, body: text ? (JSON.parse(text) as unknown) : undefined };
}

/**
 * The body of a success answer, as its operation's response schema types it (the OpenAPI check
 * of {@link call} has held it against that schema), with the debug notes any answer may carry; or
 * read by `schema`, for a handler bound to no operation.
 */
export function success<A>(response: CallResult<A>): A & { debug?: Notification[] };
export function success<S extends z.ZodType>(response: CallResult, schema: S): z.output<S>;
export function success(response: CallResult, schema?: z.ZodType): unknown {
  if (response.status >= 300)
    throw new Error(`expected a success, got ${response.status}: ${JSON.stringify(response.body)}`);
  return schema ? schema.parse(response.body) : response.body;
}

/** The debug notes of any answer, a success or an error (docs/api.md#debug). */
export function notesOf(response: CallResult): Notification[] | undefined {
  return z.object({ debug: z.array(Notification).optional() }).parse(response.body).debug;
}

/** The `error` of an error answer (docs/api.md#errors). */
export function failure(response: CallResult): ErrorBody["error"] {
  if (response.status < 400)
    throw new Error(`expected an error, got ${response.status}: ${JSON.stringify(response.body)}`);
  return ErrorBody.parse(response.body).error;
}

export interface Tenant {
  companyId: string;
  adminRoleId: string;
  memberRoleId: string;
  adminId: string;
  adminToken: string;
  /** A user of the company with only the `Member` role. */
  memberId: string;
  memberToken: string;
}

// Tests read responses, not logs; LOG_LEVEL=info brings the log lines back.
process.env.LOG_LEVEL ??= "silent";

let counter = 0;

/** A new company with an admin and a member, each with an access token. */
export async function createTenant(name = `Company ${++counter}`): Promise<Tenant> {
  await ready();
  const slug = `${name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const created = await createCompany({ name, adminEmail: `admin@${slug}.test` });
  const admin = await createApiToken(`admin@${slug}.test`, 3600, created.company._id);
  const auth = { userId: admin.userId, companyId: created.company._id, sessionId: "", accessRoles: [] };
  const member = await createUser(
    auth,
    {
      email: `member@${slug}.test`,
      accessRoles: [created.memberRoleId],
      properties: [],
      isActive: true,
      isOnline: false,
      termsConditions: false,
      extensions: {},
    },
    { notifyEmail: false, notes: new Notes() },
  );
  const memberToken = await createApiToken(member.email, 3600, created.company._id);
  return {
    companyId: created.company._id,
    adminRoleId: created.adminRoleId,
    memberRoleId: created.memberRoleId,
    adminId: admin.userId,
    adminToken: admin.accessToken,
    memberId: member._id,
    memberToken: memberToken.accessToken,
  };
}
