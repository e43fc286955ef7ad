import { ServiceError } from "@/lib/kernel/errors";
import { debugFlag, parseQuery } from "@/lib/kernel/query";
import { ListUsersQuery } from "@/lib/resources/users/contract";
import { describe, expect, it } from "vitest";
import { isJsonContentType, MAX_BODY_DEPTH, readJsonBody } from "./body";

const q = (text: string) => parseQuery(new URLSearchParams(text), ListUsersQuery);

describe("parseQuery", () => {
  it("collects repeated array parameters and splits comma-separated values", () => {
    expect(q("email=a@x.io&email=b@x.io,c@x.io&email[]=d@x.io").input).toEqual({
      email: ["a@x.io", "b@x.io", "c@x.io", "d@x.io"],
    });
  });

  it("takes single parameters once and refuses them repeated", () => {
    expect(q("limit=5").input).toEqual({ limit: "5" });
    expect(q("limit=5&limit=6").errors).toEqual([{ path: "limit", message: "must be given once" }]);
  });

  it("refuses bracketed keys instead of building objects", () => {
    const parsed = q("email[$ne]=x&a[b]=1");
    expect(parsed.input).toEqual({});
    expect(parsed.errors.map((error) => error.path)).toEqual(["email[$ne]", "a[b]"]);
  });

  it("lists unknown parameters and leaves debug to the wrapper", () => {
    const parsed = q("foo=1&debug=true&foo=2&$where=1");
    expect(parsed.unknown).toEqual(["foo", "$where"]);
    expect(parsed.input).toEqual({});
  });

  it("reads debug strictly", () => {
    expect(debugFlag(new URLSearchParams("debug=true"))).toEqual({ debug: true });
    expect(debugFlag(new URLSearchParams(""))).toEqual({ debug: false });
    expect(debugFlag(new URLSearchParams("debug=yes")).error?.path).toBe("debug");
  });
});

describe("readJsonBody", () => {
  const request = (body: BodyInit | null, headers: Record<string, string> = { "content-type": "application/json" }) =>
    new Request("http://localhost/x", { method: "POST", body, headers });

  const failure = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ServiceError);
    return error as ServiceError;
  };

  it("parses JSON", async () => {
    expect(await readJsonBody(request('{"a":[1,{"b":null}]}'))).toEqual({ a: [1, { b: null }] });
  });

  it("treats a request without body as no body", async () => {
    expect(await readJsonBody(request(null, {}))).toBeUndefined();
  });

  it("refuses other content types (415), bad JSON (400) and bad UTF-8 (400)", async () => {
    expect((await failure(readJsonBody(request('{"a":1}', { "content-type": "text/plain" })))).code).toBe(
      "unsupported_media_type",
    );
    expect((await failure(readJsonBody(request('{"a":1}', {})))).code).toBe("unsupported_media_type");
    expect((await failure(readJsonBody(request('{"a":')))).code).toBe("invalid_json");
    expect((await failure(readJsonBody(request(new Uint8Array([0x7b, 0xff, 0x7d]))))).code).toBe("invalid_json");
  });

  it("refuses bodies over the limit by header and by bytes received (413)", async () => {
    const big = "x".repeat(2048);
    expect((await failure(readJsonBody(request(JSON.stringify(big)), 1024))).code).toBe("payload_too_large");
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 4; i++) controller.enqueue(new TextEncoder().encode("x".repeat(400)));
        controller.close();
      },
    });
    const streamed = new Request("http://localhost/x", {
      method: "POST",
      body: stream,
      headers: { "content-type": "application/json" },
      duplex: "half",
    } as RequestInit);
    expect(streamed.headers.get("content-length")).toBeNull();
    expect((await failure(readJsonBody(streamed, 1024))).code).toBe("payload_too_large");
  });

  it("refuses prototype keys at any depth", async () => {
    const error = await failure(readJsonBody(request('{"a":{"__proto__":{"x":1}},"b":[{"constructor":1}]}')));
    expect(error.code).toBe("invalid_request");
    expect(error.details?.map((detail) => detail.path)).toEqual(["a.__proto__", "b.0.constructor"]);
  });

  it.each([5_000, 100_000])(
    "refuses a body nested %i levels deep with 400, whether arrays or objects",
    async (levels) => {
      for (const text of ["[".repeat(levels) + "]".repeat(levels), '{"a":'.repeat(levels) + "1" + "}".repeat(levels)]) {
        const error = await failure(readJsonBody(request(text)));
        expect(error.code).toBe("invalid_request");
        expect(error.details).toEqual([{ path: "body", message: `is nested deeper than ${MAX_BODY_DEPTH} levels` }]);
      }
    },
  );

  it("accepts a body nested exactly as deep as allowed", async () => {
    const text = '{"a":'.repeat(MAX_BODY_DEPTH - 1) + "[]" + "}".repeat(MAX_BODY_DEPTH - 1);
    let value = await readJsonBody(request(text));
    let depth = 1;
    while (!Array.isArray(value)) {
      value = (value as { a: unknown }).a;
      depth += 1;
    }
    expect(depth).toBe(MAX_BODY_DEPTH);
    await expect(readJsonBody(request(`[${text}]`))).rejects.toMatchObject({ code: "invalid_request" });
  });

  it("names at most 20 forbidden keys", async () => {
    const body = JSON.stringify(Array.from({ length: 1000 }, () => JSON.parse('{"__proto__":1}')));
    const error = await failure(readJsonBody(request(body)));
    expect(error.details).toHaveLength(20);
    expect(error.details?.[19].path).toBe("19.__proto__");
  });

  it("knows JSON content types", () => {
    expect(isJsonContentType("application/json")).toBe(true);
    expect(isJsonContentType("application/json; charset=UTF-8")).toBe(true);
    expect(isJsonContentType("application/merge-patch+json")).toBe(true);
    expect(isJsonContentType("application/json; charset=latin1")).toBe(false);
    expect(isJsonContentType("text/json")).toBe(false);
    expect(isJsonContentType(null)).toBe(false);
  });
});
