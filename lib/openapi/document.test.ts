import { readdirSync } from "node:fs";
import path from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { METHODS } from "@/lib/schemas/operation";
import { isOtherMethod, operationOf } from "@/lib/http/route";
import { surveyRecord } from "@/lib/testing/survey-record";
import { buildDocument, type OpenApiDocument } from "./document";
import { AnswerValidator } from "./validate";

const root = path.resolve(__dirname, "../..");

/** `app/v2/users/[id]/route.ts` → `/v2/users/{id}`. */
function routeFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { recursive: true, encoding: "utf8" })
    .filter((file) => path.basename(file) === "route.ts")
    .map((file) => `/${path.join(dir.replace(/^app\//, ""), path.dirname(file)).split(path.sep).join("/")}`.replace(/\[([^\]]+)\]/g, "{$1}"));
}

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
    const documented = Object.keys(document.paths).filter((p) => p.startsWith("/v2/")).sort();
    expect(documented).toEqual(files);
    for (const p of Object.keys(document.paths).filter((p) => !p.startsWith("/v2/"))) {
      expect(routeFiles(`app${p}`), p).toEqual([p]);
    }
  });

  it("describes every handler a route file exports, and only those", async () => {
    for (const p of Object.keys(document.paths)) {
      const routeModule = (await import(path.join(root, `app${p.replace(/\{([^}]+)\}/g, "[$1]")}`, "route.ts"))) as Record<string, unknown>;
      const exported = Object.keys(routeModule).filter((name) => (METHODS as readonly string[]).includes(name.toLowerCase()) && !isOtherMethod(routeModule[name]));
      expect(Object.keys(document.paths[p]).sort(), p).toEqual(exported.map((name) => name.toLowerCase()).sort());
      for (const name of exported) expect(operationOf(routeModule[name]), `${name} ${p}`).toMatchObject({ method: name.toLowerCase(), path: p });
    }
  });

  it("compiles every response schema", () => {
    const validator = new AnswerValidator(document);
    for (const [p, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const status of Object.keys(operation!.responses)) {
          const problems = validator.problems({ method, url: p.replace(/\{[^}]+\}/g, "x"), status: Number(status), contentType: "application/json", body: "null" });
          // `null` is never a valid answer; what matters is that a schema was found and compiled.
          if (operation!.responses[status].content) expect(problems.length, `${method} ${p} ${status}`).toBeGreaterThan(0);
          for (const problem of problems) expect(problem).not.toMatch(/not documented|not in the OpenAPI|not JSON/);
        }
      }
    }
  });

  it("gives array query parameters the repeated style, and limits with their defaults", () => {
    const list = document.paths["/v2/users"].get!.parameters as { name: string; style?: string; explode?: boolean; schema: Record<string, unknown> }[];
    const byName = Object.fromEntries(list.filter((p) => "name" in p).map((p) => [p.name, p]));
    for (const name of ["email", "bot", "id"]) {
      expect(byName[name]).toMatchObject({ in: "query", style: "form", explode: true, schema: { type: "array" } });
    }
    expect(byName.limit.schema).toMatchObject({ type: "integer", minimum: 1, maximum: 100, default: 10 });
    expect(byName.page.schema).toMatchObject({ type: "integer", minimum: 1, default: 1 });
    expect(byName.count.schema).toEqual({ type: "boolean", default: false });
    expect(byName.isActive.schema).toMatchObject({ enum: ["all", "true", "false"], default: "true" });
    expect(byName.orderBy.schema).toMatchObject({ enum: ["asc", "desc"], default: "desc" });
    expect(byName.modified_gte.schema).toMatchObject({ type: "string", format: "date-time" });
    expect(byName.relatedUser.schema).toMatchObject({ type: "string", pattern: "^[0-9a-fA-F]{24}$" });
  });

  it("requires the Admin header and the bearer token exactly where the routes do", () => {
    const admin = (method: string, p: string) =>
      ((document.paths[p] as Record<string, { parameters: { $ref?: string }[] }>)[method].parameters).some((q) => q.$ref === "#/components/parameters/Admin");
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
    expect(Object.keys(document.paths["/v2/users"].post!.responses).sort()).toEqual(["201", "400", "401", "403", "409", "413", "415", "422", "429", "500", "503"]);
  });

  it("describes the list envelope and the error body of docs/api.md", () => {
    const validator = new AnswerValidator(document);
    const answer = (url: string, status: number, body: unknown, method = "get") =>
      validator.problems({ method, url, status, contentType: "application/json; charset=utf-8", body: JSON.stringify(body) });
    expect(answer("/v2/users?count=true", 200, { data: { users: [], page: 1, limit: 10, counter: 0 } })).toEqual([]);
    expect(answer("/v2/users", 200, { data: { users: [], page: 1 } })).not.toEqual([]);
    expect(answer("/v2/users", 200, { data: { users: [], page: 1, limit: 10, extra: 1 } })).not.toEqual([]);
    const error = { error: { status: 403, code: "admin_required", message: "m", requestId: "r" }, debug: [{ level: "error", code: "admin_required", message: "m" }] };
    expect(answer("/v2/users", 403, error, "post")).toEqual([]);
    expect(answer("/v2/users", 403, { error: { ...error.error, code: "not_found" } }, "post")).not.toEqual([]);
    expect(answer("/v2/users", 404, { error: { status: 404, code: "not_found", message: "m", requestId: "r" } })).not.toEqual([]);
  });

  it("requires X-Request-Id and the rate-limit headers on every answer and Location on a create", () => {
    const validator = new AnswerValidator(document);
    const survey = surveyRecord();
    const rate = { "ratelimit-limit": "600, 600;w=60", "ratelimit-remaining": "599", "ratelimit-reset": "60" };
    const created = (headers: Record<string, string>) =>
      validator.problems({ method: "post", url: "/v2/surveys", status: 201, contentType: "application/json", headers: new Headers(headers), body: JSON.stringify(survey) });
    expect(created({ ...rate, "x-request-id": "r", location: `/v2/surveys/${survey._id}` })).toEqual([]);
    expect(created({ ...rate, "x-request-id": "r" })).toEqual([expect.stringMatching(/header Location is missing/)]);
    expect(created({ ...rate, location: "/v2/surveys/x" })).toEqual([expect.stringMatching(/header X-Request-Id is missing/)]);
    expect(created({ "x-request-id": "r", location: "/v2/surveys/x" })).toEqual([
      expect.stringMatching(/header RateLimit-Limit is missing/),
      expect.stringMatching(/header RateLimit-Remaining is missing/),
      expect.stringMatching(/header RateLimit-Reset is missing/),
    ]);
    const refused = document.paths["/v2/users"].post!.responses["429"].headers!;
    expect(Object.keys(refused)).toEqual(expect.arrayContaining(["Retry-After", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"]));
    const replayable = document.paths["/v2/users"].post!.responses["201"].headers!;
    expect(Object.keys(replayable)).toContain("Idempotent-Replayed");
  });
});
