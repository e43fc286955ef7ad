/**
 * A command's `let` values are evaluated before any document is read, so one naming a field is
 * refused (4890500) whatever kind of object holds the expression: also one without a prototype
 * (`Object.create(null)`), which the server's own code may build, evaluated on a real store.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Store } from "../storage/store";
import { mingoOptions } from "./query";
import { readsDocument } from "./reads-document";

/** An object without a prototype holding the given fields. */
const bare = (fields: Record<string, unknown>) => Object.assign(Object.create(null) as Record<string, unknown>, fields);

let dir: string;
let store: Store;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "embedded-mongo-reads-document-"));
  store = Store.open(dir);
});
afterAll(async () => {
  await store?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("readsDocument", () => {
  it("sees a field read inside an object of any prototype, and none inside $literal", () => {
    expect(readsDocument(bare({ $concat: ["$a", "b"] }))).toBe(true);
    expect(readsDocument({ x: bare({ y: ["$$ROOT"] }) })).toBe(true);
    expect(readsDocument(bare({ $add: [1, "$$CURRENT.n"] }))).toBe(true);
    expect(readsDocument(bare({ $literal: "$a" }))).toBe(false);
    expect(readsDocument(bare({ $add: [1, 2] }))).toBe(false);
    expect(readsDocument("$$NOW")).toBe(false);
  });

  it("refuses a let value without a prototype that names a field, and evaluates one that does not", () => {
    expect(() => mingoOptions(store, "db", { v: bare({ $concat: ["$a", "b"] }) })).toThrow(
      expect.objectContaining({ code: 4890500 }),
    );
    expect(() => mingoOptions(store, "db", { v: { $add: [bare({ $abs: "$$ROOT.n" }), 1] } })).toThrow(
      expect.objectContaining({ code: 4890500 }),
    );
    const options = mingoOptions(store, "db", { three: bare({ $add: [1, 2] }), text: bare({ $literal: "$a" }) });
    expect(options.variables).toMatchObject({ three: 3, text: "$a" });
  });
});
