import { readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isOtherMethod } from "./methods";

const root = path.resolve(__dirname, "../../..");
const METHODS = ["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"];

/** Every route file under app/v2 and app/api, as `app/...` paths. */
const routeFiles = ["app/v2", "app/api"].flatMap((dir) =>
  readdirSync(path.join(root, dir), { recursive: true, encoding: "utf8" })
    // The catch-all of paths no route serves (`[...path]`) has no method of its own.
    .filter((file) => path.basename(file) === "route.ts" && !file.includes("[..."))
    .map((file) => path.join(dir, file)),
);

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

describe("methods a route does not have", () => {
  it("finds the route files", () => {
    expect(routeFiles.length).toBeGreaterThan(15);
  });

  it.each(routeFiles)(
    "%s: 405 method_not_allowed in the error shape with Allow, and OPTIONS with Allow",
    async (file) => {
      const routeModule = (await import(path.join(root, file))) as Record<string, Handler | undefined>;
      const own = METHODS.filter((method) => routeModule[method] && !isOtherMethod(routeModule[method]));
      expect(own.length, file).toBeGreaterThan(0);
      const allow = [...new Set([...own, ...(own.includes("GET") ? ["HEAD"] : []), "OPTIONS"])].sort().join(", ");
      const url = `http://localhost/${file.replace(/^app\//, "").replace(/\/route\.ts$/, "")}`;

      for (const method of METHODS.filter((name) => !own.includes(name))) {
        // HEAD of a route with GET is Next.js' own (answered from GET); every other method is ours.
        if (method === "HEAD" && own.includes("GET")) {
          expect(routeModule.HEAD, file).toBeUndefined();
          continue;
        }
        const handler = routeModule[method];
        expect(handler, `${file} exports no ${method}`).toBeTypeOf("function");
        const response = await handler!(new Request(url, { method, headers: { "x-request-id": "req-405" } }), {
          params: Promise.resolve({}),
        });
        expect(response.headers.get("allow"), `${method} ${file}`).toBe(allow);
        if (method === "OPTIONS") {
          expect(response.status).toBe(204);
          continue;
        }
        expect(response.status, `${method} ${file}`).toBe(405);
        expect(response.headers.get("content-type")).toMatch(/^application\/json/);
        expect(response.headers.get("x-request-id")).toBe("req-405");
        const body = await response.json();
        expect(body).toEqual({
          error: {
            status: 405,
            code: "method_not_allowed",
            message: expect.stringContaining(allow),
            requestId: "req-405",
          },
        });
      }
    },
  );
});

describe("a path no route serves", () => {
  it.each(["app/v2/[...path]/route.ts", "app/api/[...path]/route.ts"])(
    "%s: 404 not_found in the error shape for every method, not the admin's page",
    async (file) => {
      const routeModule = (await import(path.join(root, file))) as Record<string, Handler | undefined>;
      const prefix = file.split("/")[1];
      for (const method of METHODS) {
        const handler = routeModule[method];
        expect(handler, `${file} exports ${method}`).toBeTypeOf("function");
        const response = await handler!(
          new Request(`http://localhost/${prefix}/no/such/path`, { method, headers: { "x-request-id": "req-404" } }),
          { params: Promise.resolve({ path: "no/such/path" }) },
        );
        expect(response.status, method).toBe(404);
        expect(response.headers.get("content-type")).toMatch(/^application\/json/);
        expect(response.headers.get("ratelimit-limit")).not.toBeNull();
        expect(await response.json()).toEqual({
          error: {
            status: 404,
            code: "not_found",
            message: expect.stringContaining("no such path"),
            requestId: "req-404",
          },
        });
      }
    },
  );
});
