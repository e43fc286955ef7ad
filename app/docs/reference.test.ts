import { openApiDocument } from "@/lib/platform/openapi/document";
import { describe, expect, it } from "vitest";
import { constraintsOf, errorSchemaOf, fieldsOf, markdown, tagsOf, typeOf } from "./reference";

describe("the API reference's reading of the OpenAPI document", () => {
  it("renders the Markdown of descriptions: paragraphs, code and bold, code winning over bold", () => {
    expect(markdown("**Admin.** Send `Admin: true`\nalways.\n\nThen `a**b`.")).toEqual([
      [
        { kind: "strong", text: "Admin." },
        { kind: "text", text: " Send " },
        { kind: "code", text: "Admin: true" },
        { kind: "text", text: " always." },
      ],
      [
        { kind: "text", text: "Then " },
        { kind: "code", text: "a**b" },
        { kind: "text", text: "." },
      ],
    ]);
  });

  it("names types in words, with the document's schemas as references", () => {
    expect(typeOf({ type: "array", items: { $ref: "#/components/schemas/ObjectId" } })).toEqual([
      { text: "array of " },
      { ref: "ObjectId" },
    ]);
    expect(
      typeOf({ anyOf: [{ $ref: "#/components/schemas/DateTime" }, { type: "null" }], type: ["string", "null"] }),
    ).toEqual([{ ref: "DateTime" }, { text: " | " }, { text: "null" }]);
    expect(typeOf({ type: "string", enum: ["all", "true"] })).toEqual([{ text: '"all" | "true"' }]);
    expect(typeOf({ type: "object", propertyNames: { type: "string" }, additionalProperties: true })).toEqual([
      { text: "object (any keys)" },
    ]);
  });

  it("says a value's limits, its own and those of the schemas it must also match", () => {
    const words = (schema: Record<string, unknown>) =>
      constraintsOf(schema).map((parts) => parts.map((part) => part.text).join(""));
    expect(words({ type: "integer", minimum: 1, maximum: 100, default: 10 })).toEqual(["from 1 to 100", "default 10"]);
    expect(
      words({ type: "string", maxLength: 254, allOf: [{ type: "string", format: "email", pattern: "^a$" }] }),
    ).toEqual(["at most 254 characters", "format email", "matches ^a$"]);
    expect(words({ type: "array", minItems: 1, maxItems: 1 })).toEqual(["1 item"]);
  });

  it("lists the fields of objects, of arrays of objects and of nullable objects", () => {
    const object = { type: "object", properties: { a: { type: "string" }, b: { type: "integer" } }, required: ["a"] };
    const expected = [
      { name: "a", required: true, schema: { type: "string" } },
      { name: "b", required: false, schema: { type: "integer" } },
    ];
    expect(fieldsOf(object)).toEqual(expected);
    expect(fieldsOf({ type: "array", items: object })).toEqual(expected);
    expect(fieldsOf({ anyOf: [object, { type: "null" }] })).toEqual(expected);
    expect(fieldsOf({ $ref: "#/components/schemas/User" })).toEqual([]);
  });

  it("groups every operation of this API's document under its tag, with parameters and headers resolved", () => {
    const document = openApiDocument();
    const tags = tagsOf(document as Parameters<typeof tagsOf>[0]);
    const operations = tags.flatMap((tag) => tag.operations);
    const inDocument = Object.values(document.paths).flatMap((item) => Object.values(item));
    expect(operations).toHaveLength(inDocument.length);
    expect(new Set(operations.map((operation) => operation.id)).size).toBe(operations.length);

    const listUsers = operations.find((operation) => operation.method === "get" && operation.path === "/v2/users")!;
    expect(tags.find((tag) => tag.operations.includes(listUsers))?.name).toBe("Users");
    expect(listUsers.authenticated).toBe(true);
    expect(listUsers.parameters.find((parameter) => parameter.name === "limit")).toMatchObject({
      in: "query",
      required: false,
    });
    expect(listUsers.parameters.find((parameter) => parameter.name === "debug")?.description).toMatch(/debug/);
    const ok = listUsers.responses.find((response) => response.status === "200")!;
    expect(typeOf(ok.body!)).toEqual([{ ref: "UserList" }]);
    expect(ok.headers.map((header) => header.name)).toContain("X-Request-Id");
    const unauthorized = listUsers.responses.find((response) => response.status === "401")!;
    expect(errorSchemaOf(unauthorized.body)).toBe("Error");

    const login = operations.find((operation) => operation.path === "/api/auth/login")!;
    expect(login.authenticated).toBe(false);
    expect(fieldsOf(login.body!).map((field) => [field.name, field.required])).toEqual(
      expect.arrayContaining([
        ["email", true],
        ["password", true],
      ]),
    );
  });
});
