import { JsonText, stringify } from "@/lib/kernel/json-text";
import { describe, expect, it } from "vitest";

describe("JsonText and stringify", () => {
  const record = { _id: "a1", name: { displayName: 'Ana "Q" \\ García\n' }, tags: ["x", "ü"], at: null };

  it("writes each text where its value stands, as JSON.stringify writes the value", () => {
    const body = { data: { users: [new JsonText(JSON.stringify(record)), new JsonText("[1,2]")], next: null } };
    const plain = { data: { users: [record, [1, 2]], next: null } };
    expect(stringify(body)).toBe(JSON.stringify(plain));
    expect(JSON.parse(stringify(body))).toEqual(plain);
  });

  it("leaves a client's text that looks like the marker as it is", () => {
    // What a marker looks like, without the process's secret: a value holding it is not spliced.
    const hostile = { name: "\u0000000000000000000000000000:0", users: [new JsonText('{"secret":1}')] };
    expect(JSON.parse(stringify(hostile))).toEqual({ name: hostile.name, users: [{ secret: 1 }] });
    expect(JSON.parse(stringify({ name: "\u0000" }))).toEqual({ name: "\u0000" });
  });

  it("is the value itself outside stringify, in another writer's JSON", () => {
    const text = new JsonText(JSON.stringify(record));
    expect(JSON.parse(JSON.stringify({ user: text }))).toEqual({ user: record });
    expect(stringify({ user: text, plain: 1 })).toBe(JSON.stringify({ user: record, plain: 1 }));
  });

  it("writes a body without texts exactly as JSON.stringify does", () => {
    for (const value of [{}, [], { a: [1, "two", { three: true }] }, "text", 3, null])
      expect(stringify(value)).toBe(JSON.stringify(value));
  });
});
