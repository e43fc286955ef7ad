import { openApiDocument } from "@/lib/platform/openapi/document";
import { describe, expect, it } from "vitest";
import { CreateUserBody, Extensions, MAX_EXTENSIONS_DEPTH, UpdateUserBody } from "./contract";

/** `levels` levels of objects: `{ a: { a: ... 1 } }`, the outer one included. */
const nested = (levels: number): Record<string, unknown> => {
  let value: unknown = 1;
  for (let level = 0; level < levels; level++) value = { a: value };
  return value as Record<string, unknown>;
};

describe("Extensions", () => {
  it(`accepts ${MAX_EXTENSIONS_DEPTH} levels of objects and arrays`, () => {
    expect(Extensions.safeParse(nested(MAX_EXTENSIONS_DEPTH)).success).toBe(true);
    expect(Extensions.safeParse({ list: [[[{ a: [1] }]]] }).success).toBe(true);
  });

  // MongoDB refuses documents nested past 100 levels: the embedded database stored them and a
  // real MongoDB would have failed the write with a 500.
  it("refuses deeper nesting, objects or arrays, with one clear issue", () => {
    for (const value of [
      nested(MAX_EXTENSIONS_DEPTH + 1),
      nested(150),
      nested(3000),
      { x: JSON.parse(`${"[".repeat(MAX_EXTENSIONS_DEPTH)}1${"]".repeat(MAX_EXTENSIONS_DEPTH)}`) },
    ]) {
      const result = Extensions.safeParse(value);
      expect(result.success).toBe(false);
      expect(result.error?.issues.map((issue) => issue.message)).toEqual([
        `must nest at most ${MAX_EXTENSIONS_DEPTH} levels of objects and arrays`,
      ]);
    }
  });

  it("applies on create and on update", () => {
    const deep = nested(101);
    expect(
      CreateUserBody.safeParse({ email: "a@b.io", accessRoles: ["0123456789abcdef01234567"], extensions: deep })
        .success,
    ).toBe(false);
    expect(UpdateUserBody.safeParse({ extensions: deep }).success).toBe(false);
    expect(UpdateUserBody.safeParse({ extensions: nested(3) }).success).toBe(true);
  });

  it("says its limits in the OpenAPI document", () => {
    const paths = openApiDocument().paths;
    for (const operation of [paths["/v2/users"].post, paths["/v2/users/{id}"].patch]) {
      expect(JSON.stringify(operation?.requestBody)).toContain(`nested at most ${MAX_EXTENSIONS_DEPTH} levels`);
    }
  });
});
