/**
 * Hostile documents through the driver's wire commands (insert, find, update with every operator,
 * aggregate, findAndModify, distinct, count, delete, createIndexes): any answer is allowed but an
 * internal error (code 1, or a message starting "internal error") or a dropped connection, which
 * would mean the server crashed on its input instead of refusing it. A fixed seed and a bounded
 * number of runs keep it a few seconds in CI; a failure prints the seed and the shrunk case.
 */
import { EJSON } from "bson";
import fc from "fast-check";
import {
  Binary,
  BSONRegExp,
  Code,
  Decimal128,
  Double,
  Int32,
  Long,
  MaxKey,
  MinKey,
  MongoClient,
  ObjectId,
  Timestamp,
  type Collection,
  type Document,
} from "mongodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempServerForThisFile } from "./testing/temp-server";

const server = tempServerForThisFile("wire-fuzz");
let client: MongoClient;
let n = 0;

beforeAll(async () => {
  client = await MongoClient.connect(server.uri, { serverSelectionTimeoutMS: 5000 });
});
afterAll(async () => {
  await client?.close();
});

// CI runs one fixed seed; WIRE_FUZZ_SEED and WIRE_FUZZ_RUNS explore further by hand.
const SEED = Number(process.env.WIRE_FUZZ_SEED ?? 20261129);
const RUNS = Number(process.env.WIRE_FUZZ_RUNS ?? 200);

/** Names a JavaScript object inherits, names MongoDB reads specially, and plain ones. */
const KEYS = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "valueOf",
  "hasOwnProperty",
  "",
  "a",
  "b",
  "0",
  "1",
  "a.b",
  "$x",
  "$",
  "$ref",
  "$id",
  "_id",
  "x y",
  "é",
];
const PATHS = [
  "a",
  "b",
  "a.b",
  "a.0",
  "a.$",
  "a.$[]",
  "__proto__",
  "__proto__.x",
  "constructor",
  "constructor.name",
  "prototype.x",
  "toString",
  "a.constructor",
  "",
  "a..b",
  "$x",
  "a.$x",
  "_id",
  "a.__proto__.b",
  "0",
];

const scalar: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(
    null,
    true,
    false,
    NaN,
    Infinity,
    -Infinity,
    -0,
    0,
    2 ** 53,
    -(2 ** 63),
    1e308,
    Number.MIN_VALUE,
    "",
    "$a",
    "$$ROOT",
    "a.b",
    "__proto__",
    new Date(0),
    new Date(8.64e15),
    new MinKey(),
    new MaxKey(),
  ),
  fc.integer(),
  fc.double(),
  fc.string({ maxLength: 8 }),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map((v) => Long.fromBigInt(v)),
  fc.integer().map((v) => new Int32(v)),
  fc.double().map((v) => new Double(v)),
  fc
    .constantFrom(
      "0",
      "-0",
      "1E+6144",
      "-9.999999999999999999999999999999999E+6144",
      "NaN",
      "Infinity",
      "-Infinity",
      "1.5",
    )
    .map((v) => Decimal128.fromString(v)),
  fc
    .tuple(fc.constantFrom(0, 1, 2, 3, 4, 5, 6, 7, 8, 128, 255), fc.uint8Array({ maxLength: 6 }))
    .map(([sub, bytes]) => new Binary(Buffer.from(bytes), sub)),
  fc
    .tuple(
      fc.constantFrom("a", "^a.*", "(", "[", "\\d+", ""),
      fc.constantFrom("", "i", "m", "s", "x", "imsx", "u", "l"),
    )
    .map(([p, f]) => new BSONRegExp(p, f)),
  fc.constantFrom(/a/i, /^x/m, /./s),
  fc.constantFrom(new Code("function () { return 1 }"), new Code("x", { a: 1 })),
  fc.constantFrom(new Timestamp({ t: 1, i: 1 }), new ObjectId("000000000000000000000000")),
);

/** A document with own fields of hostile names (`__proto__` included, as an own field). */
function makeDocument(entries: Array<[string, unknown]>): Document {
  const doc: Document = {};
  for (const [key, value] of entries)
    Object.defineProperty(doc, key, { value, enumerable: true, writable: true, configurable: true });
  return doc;
}

const { value } = fc.letrec<{ value: unknown; doc: Document }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    scalar,
    fc.array(tie("value"), { maxLength: 4 }),
    tie("doc"),
  ),
  doc: fc.array(fc.tuple(fc.constantFrom(...KEYS), tie("value")), { maxLength: 4 }).map(makeDocument),
}));

/** A value nested `depth` times in documents or arrays. */
const deep = fc.tuple(fc.integer({ min: 1, max: 90 }), fc.boolean(), scalar).map(([depth, arrays, leaf]) => {
  let v: unknown = leaf;
  for (let i = 0; i < depth; i++) v = arrays ? [v] : makeDocument([["a", v]]);
  return v;
});

const anyValue = fc.oneof(value, deep);
const path = fc.constantFrom(...PATHS);
const doc = fc.array(fc.tuple(fc.constantFrom(...KEYS, ...PATHS), anyValue), { maxLength: 5 }).map(makeDocument);

const QUERY_OPS = [
  "$eq",
  "$ne",
  "$gt",
  "$gte",
  "$lt",
  "$lte",
  "$in",
  "$nin",
  "$exists",
  "$type",
  "$size",
  "$all",
  "$elemMatch",
  "$not",
  "$regex",
  "$mod",
  "$bitsAllSet",
  "$bitsAnyClear",
  "$options",
  "$foo",
];
const condition = fc.oneof(
  anyValue,
  fc.tuple(fc.constantFrom(...QUERY_OPS), anyValue).map(([op, v]) => makeDocument([[op, v]])),
);
const filter = fc.oneof(
  fc.array(fc.tuple(path, condition), { maxLength: 3 }).map(makeDocument),
  fc
    .tuple(fc.constantFrom("$and", "$or", "$nor", "$expr", "$text", "$comment", "$jsonSchema"), anyValue)
    .map(([op, v]) => makeDocument([[op, v]])),
);

const UPDATE_OPS = [
  "$set",
  "$unset",
  "$inc",
  "$mul",
  "$min",
  "$max",
  "$rename",
  "$push",
  "$addToSet",
  "$pull",
  "$pullAll",
  "$pop",
  "$currentDate",
  "$bit",
  "$setOnInsert",
];
const updateValue = fc.oneof(
  anyValue,
  fc.constantFrom<unknown>(
    { $each: [1, 2], $slice: -1, $sort: 1 },
    { $each: "x" },
    { $type: "timestamp" },
    { and: 1 },
    "a.c",
    "__proto__.p",
    "constructor.p",
    "$x",
  ),
);
const update = fc.oneof(
  fc
    .array(
      fc.tuple(
        fc.constantFrom(...UPDATE_OPS),
        fc.array(fc.tuple(path, updateValue), { minLength: 1, maxLength: 3 }).map(makeDocument),
      ),
      { minLength: 1, maxLength: 3 },
    )
    .map(makeDocument),
  fc
    .array(fc.tuple(fc.constantFrom("$set", "$addFields", "$project", "$unset", "$replaceWith", "$group"), anyValue), {
      minLength: 1,
      maxLength: 2,
    })
    .map((stages) => stages.map(([op, v]) => makeDocument([[op, v]]))),
);

const STAGES = [
  "$match",
  "$project",
  "$addFields",
  "$group",
  "$sort",
  "$unwind",
  "$limit",
  "$skip",
  "$count",
  "$replaceRoot",
  "$bucket",
  "$facet",
  "$lookup",
  "$sortByCount",
  "$unionWith",
  "$densify",
  "$fill",
  "$setWindowFields",
  "$redact",
  "$sample",
];
const pipeline = fc.array(
  fc.oneof(
    fc.tuple(fc.constantFrom(...STAGES), anyValue).map(([op, v]) => makeDocument([[op, v]])),
    fc.tuple(path, anyValue).map(([p, v]) => ({ $project: makeDocument([[p, v]]) })),
    fc.tuple(path, anyValue).map(([p, v]) => ({
      $group: makeDocument([
        ["_id", `$${p}`],
        ["v", makeDocument([["$push", v]])],
      ]),
    })),
    fc.tuple(path, fc.constantFrom(1, -1, 0, "x")).map(([p, d]) => ({ $sort: makeDocument([[p, d]]) })),
    path.map((p) => ({ $unwind: `$${p}` })),
  ),
  { maxLength: 3 },
);

/** One driver call, printed (in a failure's counterexample) as its name and arguments. */
interface Operation {
  run(c: Collection<Document>): Promise<unknown>;
  describe(): string;
}

function op<A extends unknown[]>(name: string, run: (c: Collection<Document>, ...args: A) => Promise<unknown>) {
  return (args: A): Operation => ({
    run: (c) => run(c, ...args),
    describe: () => `${name}(${args.map((a) => EJSON.stringify(a as Document, { relaxed: false })).join(", ")})`,
  });
}

const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.tuple(doc).map(op("insertOne", (c, d) => c.insertOne(d))),
  fc
    .tuple(fc.array(doc, { minLength: 1, maxLength: 3 }))
    .map(op("insertMany", (c, ds) => c.insertMany(ds, { ordered: false }))),
  fc
    .tuple(filter, fc.option(fc.tuple(path, fc.constantFrom(1, -1))))
    .map(op("find", (c, f, s) => c.find(f, s ? { sort: makeDocument([s]) } : {}).toArray())),
  fc
    .tuple(filter, fc.array(fc.tuple(path, fc.oneof(fc.constantFrom<unknown>(0, 1), anyValue)), { maxLength: 2 }))
    .map(op("findProjected", (c, f, p) => c.find(f, { projection: makeDocument(p) }).toArray())),
  fc.tuple(filter, update, fc.boolean()).map(op("updateMany", (c, f, u, upsert) => c.updateMany(f, u, { upsert }))),
  fc
    .tuple(filter, update, fc.boolean())
    .map(op("findOneAndUpdate", (c, f, u, upsert) => c.findOneAndUpdate(f, u, { upsert, returnDocument: "after" }))),
  fc.tuple(filter, doc).map(op("replaceOne", (c, f, d) => c.replaceOne(f, d, { upsert: true }))),
  fc
    .tuple(filter, update, fc.array(filter, { maxLength: 2 }))
    .map(op("updateOne", (c, f, u, arrayFilters) => c.updateOne(f, u, { arrayFilters }))),
  fc.tuple(pipeline).map(op("aggregate", (c, p) => c.aggregate(p).toArray())),
  fc.tuple(filter, pipeline).map(op("aggregateMatch", (c, f, p) => c.aggregate([{ $match: f }, ...p]).toArray())),
  fc.tuple(path, filter).map(op("distinct", (c, p, f) => c.distinct(p, f))),
  fc.tuple(filter).map(op("countDocuments", (c, f) => c.countDocuments(f))),
  fc.tuple(filter).map(op("deleteMany", (c, f) => c.deleteMany(f))),
  fc
    .tuple(path, fc.constantFrom<unknown>(1, -1, "hashed", "text", "2d", 0, "x", true))
    .map(op("createIndex", (c, p, kind) => c.createIndex(makeDocument([[p, kind]])))),
);

/** The server's answer must never be an internal error, nor the connection dropped. */
function acceptable(err: unknown): boolean {
  const e = err as { name?: string; code?: unknown; message?: string };
  if (e.code === 1 || /^internal error/i.test(e.message ?? "")) return false;
  if (/MongoNetwork|MongoServerSelection|MongoTopologyClosed/.test(e.name ?? "")) return false;
  return true;
}

describe("hostile documents through the wire commands", () => {
  it("never answer an internal error nor drop the connection", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 6 }), async (operations) => {
        const c = client.db("wire_fuzz").collection<Document>(`c${n++ % 8}`);
        for (const operation of operations) {
          try {
            await operation.run(c);
          } catch (err) {
            if (!acceptable(err)) {
              const held = await c
                .find({}, { bsonRegExp: true })
                .toArray()
                .then(
                  (docs) => EJSON.stringify(docs, { relaxed: false }),
                  (e: Error) => e.message,
                );
              throw new Error(
                `${operation.describe()} answered ${(err as Error).name}: ${(err as Error).message}; the collection held ${held.slice(0, 4000)}`,
              );
            }
          }
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
    expect((await client.db("admin").command({ ping: 1 })).ok).toBe(1);
  }, 600_000);
});
