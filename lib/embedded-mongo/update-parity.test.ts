/** Update operators where mingo would answer otherwise than MongoDB (query/update.ts). */
import { Int32, Long, MongoClient, MongoServerError, Timestamp, type Collection, type Document } from "mongodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempServerForThisFile } from "./testing/temp-server";

const server = tempServerForThisFile("update-parity");
let client: MongoClient;
let c: Collection<{ _id: number; [key: string]: unknown }>;
let n = 0;

beforeAll(async () => {
  client = await MongoClient.connect(server.uri);
  c = client.db("updates").collection("docs");
});
afterAll(async () => {
  await client?.close();
});

/** The document after `update`, its values as BSON types. */
async function updated(doc: Document, update: Document): Promise<Document> {
  const _id = ++n;
  await c.insertOne({ _id, ...doc });
  await c.updateOne({ _id }, update);
  return (await c.findOne({ _id }, { promoteValues: false }))!;
}

async function refused(doc: Document, update: Document): Promise<MongoServerError> {
  const _id = ++n;
  await c.insertOne({ _id, ...doc });
  const error = await c.updateOne({ _id }, update).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MongoServerError);
  expect(await c.findOne({ _id })).toEqual({ _id, ...doc });
  return error as MongoServerError;
}

describe("$inc and $mul", () => {
  it("make a long of two ints whose result leaves int32's range", async () => {
    expect((await updated({ x: new Int32(2147483647) }, { $inc: { x: 1 } })).x).toEqual(Long.fromNumber(2147483648));
    expect((await updated({ x: new Int32(-2147483648) }, { $inc: { x: -1 } })).x).toEqual(Long.fromNumber(-2147483649));
    expect((await updated({ x: new Int32(65536) }, { $mul: { x: new Int32(65536) } })).x).toEqual(
      Long.fromNumber(4294967296),
    );
    expect((await updated({ x: new Int32(5) }, { $inc: { x: 1 } })).x).toEqual(new Int32(6));
  });

  it("refuse a field that holds no number with 14, and leave the document as it was", async () => {
    const error = await refused({ x: "s" }, { $inc: { x: 1 } });
    expect(error.code).toBe(14);
    expect(error.message).toBe(
      `Cannot apply $inc to a value of non-numeric type. {_id: ${n}} has the field 'x' of non-numeric type string`,
    );
    expect((await refused({ x: null }, { $mul: { x: 2 } })).message).toMatch(/^Cannot apply \$mul .* type null$/);
  });
});

describe("$currentDate", () => {
  it("sets a date for a boolean or {$type: 'date'}, a timestamp for {$type: 'timestamp'}", async () => {
    const before = Date.now();
    const doc = await updated({}, { $currentDate: { a: true, b: { $type: "date" }, t: { $type: "timestamp" } } });
    expect(doc.a).toBeInstanceOf(Date);
    expect((doc.a as Date).getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(doc.b).toBeInstanceOf(Date);
    expect(doc.t).toBeInstanceOf(Timestamp);
    expect((doc.t as Timestamp).t).toBeGreaterThanOrEqual(Math.floor(before / 1000) - 1);
  });

  it("refuses any other value with 2", async () => {
    expect((await refused({}, { $currentDate: { a: 1 } })).message).toBe(
      "int is not valid type for $currentDate. Please use a boolean ('true') or a $type expression ({$type: 'timestamp/date'}).",
    );
    expect((await refused({}, { $currentDate: { a: { $type: "now" } } })).code).toBe(2);
    expect((await refused({}, { $currentDate: { a: { other: 1 } } })).message).toBe(
      "Unrecognized $currentDate option: other",
    );
  });
});
