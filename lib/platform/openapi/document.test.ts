import { METHODS } from "@/lib/base/schemas/operation";
import { operationOf } from "@/lib/platform/http/binding";
import { isOtherMethod } from "@/lib/platform/http/methods";
import { OPERATIONS } from "@/lib/resources";
import { surveyRecord } from "@/lib/tools/testing/survey-record";
import { Validator } from "@seriousme/openapi-schema-validator";
import { readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildDocument, type OpenApiDocument } from "./document";
import { AnswerValidator } from "./validate";

const root = path.resolve(__dirname, "../../..");

/** `app/v2/users/[id]/route.ts` → `/v2/users/{id}`. */
function routeFiles(dir: string): string[] {
  return (
    readdirSync(path.join(root, dir), { recursive: true, encoding: "utf8" })
      // The catch-all of paths no route serves (`[...path]`, lib/platform/http/methods.ts) is no operation.
      .filter((file) => path.basename(file) === "route.ts" && !file.includes("[..."))
      .map((file) =>
        `/${path
          .join(dir.replace(/^app\//, ""), path.dirname(file))
          .split(path.sep)
          .join("/")}`.replace(/\[([^\]]+)\]/g, "{$1}"),
      )
  );
}

/** The rate-limit headers every /v2 answer carries. */
const rate = { "ratelimit-limit": "600, 600;w=60", "ratelimit-remaining": "599", "ratelimit-reset": "60" };

describe("the OpenAPI document", () => {
  const document: OpenApiDocument = buildDocument();

  it("is a valid OpenAPI 3.1 document", async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("describes every route file under app/v2, and every path it describes has its route file", () => {
    const files = routeFiles("app/v2").sort();
    const documented = Object.keys(document.paths)
      .filter((p) => p.startsWith("/v2/"))
      .sort();
    expect(documented).toEqual(files);
    for (const p of Object.keys(document.paths).filter((p) => !p.startsWith("/v2/"))) {
      expect(routeFiles(`app${p}`), p).toEqual([p]);
    }
  });

  it("describes every handler a route file exports, and only those", async () => {
    for (const p of Object.keys(document.paths)) {
      const routeModule = (await import(
        path.join(root, `app${p.replace(/\{([^}]+)\}/g, "[$1]")}`, "route.ts")
      )) as Record<string, unknown>;
      const exported = Object.keys(routeModule).filter(
        (name) => (METHODS as readonly string[]).includes(name.toLowerCase()) && !isOtherMethod(routeModule[name]),
      );
      expect(Object.keys(document.paths[p]).sort(), p).toEqual(exported.map((name) => name.toLowerCase()).sort());
      for (const name of exported) {
        expect(operationOf(routeModule[name]), `${name} ${p}`).toMatchObject({ method: name.toLowerCase(), path: p });
        // The very operation a contract named in lib/resources/index.ts declares, not a copy of it.
        expect(OPERATIONS, `${name} ${p}`).toContain(operationOf(routeModule[name]));
      }
    }
  });

  it("compiles every response schema", () => {
    const validator = new AnswerValidator(document);
    for (const [p, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const status of Object.keys(operation!.responses)) {
          const problems = validator.problems({
            method,
            url: p.replace(/\{[^}]+\}/g, "x"),
            status: Number(status),
            contentType: "application/json",
            body: "null",
          });
          // `null` is never a valid answer; what matters is that a schema was found and compiled.
          if (operation!.responses[status].content)
            expect(problems.length, `${method} ${p} ${status}`).toBeGreaterThan(0);
          for (const problem of problems) expect(problem).not.toMatch(/not documented|not in the OpenAPI|not JSON/);
        }
      }
    }
  });

  it("gives array query parameters the repeated style, and limits with their defaults", () => {
    const list = document.paths["/v2/users"].get!.parameters as {
      name: string;
      style?: string;
      explode?: boolean;
      schema: Record<string, unknown>;
    }[];
    const byName = Object.fromEntries(list.filter((p) => "name" in p).map((p) => [p.name, p]));
    for (const name of ["email", "bot", "id"]) {
      expect(byName[name]).toMatchObject({ in: "query", style: "form", explode: true, schema: { type: "array" } });
    }
    expect(byName.limit.schema).toMatchObject({ type: "integer", minimum: 1, maximum: 100, default: 10 });
    expect(byName.page.schema).toMatchObject({ type: "integer", minimum: 1 });
    expect(byName.cursor).toMatchObject({ in: "query", required: false, schema: { type: "string" } });
    expect(byName.count.schema).toEqual({ type: "boolean", default: false });
    expect(byName.isActive.schema).toMatchObject({ enum: ["all", "true", "false"], default: "true" });
    expect(byName.orderBy.schema).toMatchObject({ enum: ["asc", "desc"], default: "desc" });
    expect(byName.modified_gte.schema).toMatchObject({ type: "string", format: "date-time" });
    expect(byName.relatedUser.schema).toMatchObject({ type: "string", pattern: "^[0-9a-fA-F]{24}$" });
  });

  it("requires the Admin header and the bearer token exactly where the routes do", () => {
    const admin = (method: string, p: string) =>
      (document.paths[p] as Record<string, { parameters: { $ref?: string }[] }>)[method].parameters.some(
        (q) => q.$ref === "#/components/parameters/Admin",
      );
    expect(admin("get", "/v2/users")).toBe(false);
    expect(admin("post", "/v2/users")).toBe(true);
    expect(admin("patch", "/v2/users/{id}")).toBe(true);
    expect(admin("get", "/v2/surveys")).toBe(false);
    expect(admin("get", "/v2/surveys/{id}")).toBe(true);
    expect(document.security).toEqual([{ bearerAuth: [] }]);
    expect(document.paths["/v2/openapi.json"].get!.security).toEqual([]);
    // A token, or an API key holding the operation's scope.
    expect(document.paths["/v2/users"].get!.security).toEqual([{ bearerAuth: [] }, { apiKey: ["users:read"] }]);
    expect(document.paths["/v2/api-keys"].post!.security).toEqual([{ bearerAuth: [] }, { apiKey: ["api-keys:write"] }]);
    expect(Object.keys(document.paths["/v2/users"].post!.responses).sort()).toEqual([
      "201",
      "400",
      "401",
      "403",
      "409",
      "413",
      "415",
      "422",
      "429",
      "500",
      "503",
    ]);
  });

  it("describes the list envelope and the error body of docs/api.md", () => {
    const validator = new AnswerValidator(document);
    const answer = (url: string, status: number, body: unknown, method = "get") =>
      validator.problems({
        method,
        url,
        status,
        contentType: "application/json; charset=utf-8",
        body: JSON.stringify(body),
      });
    expect(
      answer("/v2/users?count=true", 200, { data: { users: [], page: 1, limit: 10, next: null, counter: 0 } }),
    ).toEqual([]);
    expect(answer("/v2/users?cursor=c", 200, { data: { users: [], limit: 10, next: "n" } })).toEqual([]);
    expect(answer("/v2/users", 200, { data: { users: [], page: 1, limit: 10 } })).not.toEqual([]);
    expect(answer("/v2/users", 200, { data: { users: [], page: 1 } })).not.toEqual([]);
    expect(answer("/v2/users", 200, { data: { users: [], page: 1, limit: 10, extra: 1 } })).not.toEqual([]);
    const error = {
      error: { status: 403, code: "admin_required", message: "m", requestId: "r" },
      debug: [{ level: "error", code: "admin_required", message: "m" }],
    };
    expect(answer("/v2/users", 403, error, "post")).toEqual([]);
    expect(answer("/v2/users", 403, { error: { ...error.error, code: "not_found" } }, "post")).not.toEqual([]);
    expect(
      answer("/v2/users", 404, { error: { status: 404, code: "not_found", message: "m", requestId: "r" } }),
    ).not.toEqual([]);
  });

  it("requires X-Request-Id and the rate-limit headers on every answer and Location on a create", () => {
    const validator = new AnswerValidator(document);
    const survey = surveyRecord();
    const created = (headers: Record<string, string>) =>
      validator.problems({
        method: "post",
        url: "/v2/surveys",
        status: 201,
        contentType: "application/json",
        headers: new Headers(headers),
        body: JSON.stringify(survey),
      });
    expect(created({ ...rate, "x-request-id": "r", location: `/v2/surveys/${survey._id}`, etag: '"t"' })).toEqual([]);
    expect(created({ ...rate, "x-request-id": "r", etag: '"t"' })).toEqual([
      expect.stringMatching(/header Location is missing/),
    ]);
    expect(created({ ...rate, location: "/v2/surveys/x", etag: '"t"' })).toEqual([
      expect.stringMatching(/header X-Request-Id is missing/),
    ]);
    expect(created({ ...rate, "x-request-id": "r", location: "/v2/surveys/x" })).toEqual([
      expect.stringMatching(/header ETag is missing/),
    ]);
    expect(created({ "x-request-id": "r", location: "/v2/surveys/x", etag: '"t"' })).toEqual([
      expect.stringMatching(/header RateLimit-Limit is missing/),
      expect.stringMatching(/header RateLimit-Remaining is missing/),
      expect.stringMatching(/header RateLimit-Reset is missing/),
    ]);
    const refused = document.paths["/v2/users"].post!.responses["429"].headers!;
    expect(Object.keys(refused)).toEqual(
      expect.arrayContaining(["Retry-After", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"]),
    );
    const replayable = document.paths["/v2/users"].post!.responses["201"].headers!;
    expect(Object.keys(replayable)).toContain("Idempotent-Replayed");
  });

  it("describes ETags, If-None-Match with 304 and If-Match with 412 on every single-user and single-survey answer", () => {
    type Op = {
      parameters: { $ref?: string }[];
      responses: Record<string, { headers?: Record<string, { $ref?: string }>; content?: unknown }>;
    };
    const op = (method: string, p: string) => (document.paths[p] as Record<string, Op>)[method];
    const headerRefs = (method: string, p: string, status: string) =>
      Object.keys(op(method, p).responses[status]?.headers ?? {});
    const params = (method: string, p: string) => op(method, p).parameters.map((q) => q.$ref);
    const single: [string, string, string][] = [
      ["get", "/v2/users/me", "200"],
      ["get", "/v2/users/{id}", "200"],
      ["post", "/v2/users", "201"],
      ["patch", "/v2/users/{id}", "200"],
      ["get", "/v2/surveys/{id}", "200"],
      ["post", "/v2/surveys", "201"],
      ["patch", "/v2/surveys/{id}", "200"],
    ];
    for (const [method, p, status] of single) {
      expect(headerRefs(method, p, status), `${method} ${p}`).toContain("ETag");
      if (method === "get") {
        expect(params(method, p)).toContain("#/components/parameters/If-None-Match");
        expect(op(method, p).responses["304"], `${method} ${p}`).toMatchObject({ headers: { ETag: {} } });
        expect(op(method, p).responses["304"].content).toBeUndefined();
      }
      if (method === "patch") {
        expect(params(method, p)).toContain("#/components/parameters/If-Match");
        expect(headerRefs(method, p, "412")).toContain("ETag");
      }
    }
    expect(op("get", "/v2/users").responses["304"]).toBeUndefined();
    expect(headerRefs("get", "/v2/users", "200")).not.toContain("ETag");

    const validator = new AnswerValidator(document);
    const answer = (method: string, url: string, status: number, body: unknown, headers: Record<string, string>) =>
      validator.problems({
        method,
        url,
        status,
        contentType: body === "" ? null : "application/json",
        headers: new Headers(headers),
        body: body === "" ? "" : JSON.stringify(body),
      });
    expect(answer("get", "/v2/users/me", 304, "", { ...rate, "x-request-id": "r", etag: '"t"' })).toEqual([]);
    expect(answer("get", "/v2/users/me", 304, "", { ...rate, "x-request-id": "r" })).toEqual([
      expect.stringMatching(/header ETag is missing/),
    ]);
    const stale = { error: { status: 412, code: "precondition_failed", message: "m", requestId: "r" } };
    expect(answer("patch", "/v2/surveys/x", 412, stale, { ...rate, "x-request-id": "r", etag: '"t"' })).toEqual([]);
    expect(answer("patch", "/v2/surveys/x", 412, stale, { ...rate, "x-request-id": "r" })).toEqual([
      expect.stringMatching(/header ETag is missing/),
    ]);
  });

  it("offers cursor, next and Link on every list", () => {
    // A list is an answer whose records come in pages (the holders' counts are not one).
    const lists = Object.entries(document.paths).flatMap(
      ([p, item]) =>
        (item.get?.responses["200"]?.content &&
        JSON.stringify(item.get.responses["200"].content).includes("List") &&
        !p.endsWith("/holders")
          ? [[p, item.get]]
          : []) as [string, Record<string, unknown>][],
    );
    expect(lists.map(([p]) => p).sort()).toEqual(
      [
        "/v2/access-roles",
        "/v2/api-keys",
        "/v2/audit-log",
        "/v2/bots",
        "/v2/events",
        "/v2/job-titles",
        "/v2/outbox",
        "/v2/properties",
        "/v2/surveys",
        "/v2/surveys/{id}/answers",
        "/v2/surveys/{id}/revisions",
        "/v2/users",
        "/v2/views",
        "/v2/webhooks",
        "/v2/webhooks/{id}/deliveries",
      ].sort(),
    );
    for (const [p, get] of lists) {
      const names = (get.parameters as { name?: string }[]).map((q) => q.name);
      // Events are followed by `after`, the id of the last one read (docs/api.md#events).
      expect(names, p).toContain(p === "/v2/events" ? "after" : "cursor");
      // The answers of a survey page by cursor only: they are read newest first while new ones arrive.
      if (p !== "/v2/surveys/{id}/answers" && p !== "/v2/events") expect(names, p).toContain("page");
      expect(Object.keys((get.responses as Record<string, { headers: object }>)["200"].headers), p).toContain("Link");
    }
    const envelope = document.components.schemas.UserList as {
      properties: { data: { properties: Record<string, unknown>; required: string[] } };
    };
    expect(envelope.properties.data.properties.next).toBeDefined();
    expect(envelope.properties.data.required).toContain("next");
  });
});
