/**
 * Collection validators through the driver and Mongoose: what MongoDB 8 refuses is refused with
 * `DocumentValidationFailure` (121) and the same `errInfo`; levels, actions and
 * `bypassDocumentValidation` behave as on a real server.
 */
import { Int32, MongoServerError, type Document } from "mongodb";
import mongoose, { Schema } from "mongoose";
import { describe, expect, it } from "vitest";
import { serverFailure, tempDatabaseForThisFile } from "../testing/temp-server";

const embedded = tempDatabaseForThisFile("validation", "validation_test");

const students = {
  $jsonSchema: {
    bsonType: "object",
    required: ["name", "year", "major", "address"],
    properties: {
      name: { bsonType: "string", description: "must be a string and is required" },
      year: {
        bsonType: "int",
        minimum: 2017,
        maximum: 3017,
        description: "must be an integer in [ 2017, 3017 ] and is required",
      },
      major: {
        enum: ["Math", "English", "Computer Science", "History", null],
        description: "can only be one of the enum values and is required",
      },
      gpa: { bsonType: ["double"], description: "must be a double if the field exists" },
      address: {
        bsonType: "object",
        required: ["city"],
        properties: {
          street: { bsonType: "string", description: "must be a string if the field exists" },
          city: { bsonType: "string", description: "must be a string and is required" },
        },
      },
    },
  },
};

describe("$jsonSchema validators", () => {
  it("refuses an insert with MongoDB's errInfo (the manual's students example)", async () => {
    await embedded.db.createCollection("students", { validator: students });
    const err = await serverFailure(
      embedded.db.collection("students").insertOne({
        _id: 7 as never,
        year: new Int32(2020),
        major: "Software Engineering",
        gpa: 5.5,
        address: { city: "NYC", street: new Int32(5) },
      }),
    );
    expect(err.code).toBe(121);
    expect(err.codeName).toBe("DocumentValidationFailure");
    expect(err.message).toBe("Document failed validation");
    expect(err.errInfo).toEqual({
      failingDocumentId: 7,
      details: {
        operatorName: "$jsonSchema",
        schemaRulesNotSatisfied: [
          {
            operatorName: "properties",
            propertiesNotSatisfied: [
              {
                propertyName: "major",
                description: "can only be one of the enum values and is required",
                details: [
                  {
                    operatorName: "enum",
                    specifiedAs: { enum: ["Math", "English", "Computer Science", "History", null] },
                    reason: "value was not found in enum",
                    consideredValue: "Software Engineering",
                  },
                ],
              },
              {
                propertyName: "address",
                details: [
                  {
                    operatorName: "properties",
                    propertiesNotSatisfied: [
                      {
                        propertyName: "street",
                        description: "must be a string if the field exists",
                        details: [
                          {
                            operatorName: "bsonType",
                            specifiedAs: { bsonType: "string" },
                            reason: "type did not match",
                            consideredValue: 5,
                            consideredType: "int",
                          },
                        ],
                      },
                    ],
                  },
                ],
              },
            ],
          },
          {
            operatorName: "required",
            specifiedAs: { required: ["name", "year", "major", "address"] },
            missingProperties: ["name"],
          },
        ],
      },
    });
    expect(await embedded.db.collection("students").countDocuments()).toBe(0);
    await embedded.db
      .collection("students")
      .insertOne({ name: "Ada", year: new Int32(2020), major: "Math", address: { city: "London" } });
    expect(await embedded.db.collection("students").countDocuments()).toBe(1);
  });

  it("reports array keywords: uniqueItems, items, minItems", async () => {
    await embedded.db.createCollection("arrays", {
      validator: {
        $jsonSchema: {
          properties: {
            values: {
              bsonType: "array",
              items: { bsonType: "string", enum: ["one", "two", "three"] },
              minItems: 1,
              uniqueItems: true,
            },
          },
        },
      },
    });
    const dup = await serverFailure(
      embedded.db.collection("arrays").insertOne({ _id: 1 as never, values: ["two", "two"] }),
    );
    expect(dup.errInfo?.details).toEqual({
      operatorName: "$jsonSchema",
      schemaRulesNotSatisfied: [
        {
          operatorName: "properties",
          propertiesNotSatisfied: [
            {
              propertyName: "values",
              details: [
                {
                  operatorName: "uniqueItems",
                  specifiedAs: { uniqueItems: true },
                  reason: "found a duplicate item",
                  consideredValue: ["two", "two"],
                  duplicatedValue: "two",
                },
              ],
            },
          ],
        },
      ],
    });
    const item = await serverFailure(
      embedded.db.collection("arrays").insertOne({ _id: 2 as never, values: ["one", "four"] }),
    );
    const detail = (item.errInfo?.details as Document).schemaRulesNotSatisfied[0].propertiesNotSatisfied[0].details[0];
    expect(detail).toMatchObject({
      operatorName: "items",
      reason: "At least one item did not match the sub-schema",
      itemIndex: 1,
    });
    expect(detail.details).toEqual([
      {
        operatorName: "enum",
        specifiedAs: { enum: ["one", "two", "three"] },
        reason: "value was not found in enum",
        consideredValue: "four",
      },
    ]);
    const empty = await serverFailure(embedded.db.collection("arrays").insertOne({ _id: 3 as never, values: [] }));
    expect(
      (empty.errInfo?.details as Document).schemaRulesNotSatisfied[0].propertiesNotSatisfied[0].details[0],
    ).toEqual({
      operatorName: "minItems",
      specifiedAs: { minItems: 1 },
      reason: "array did not match specified length",
      consideredValue: [],
      numberOfItems: 0,
    });
  });

  it("reports string, number, object and logical keywords", async () => {
    await embedded.db.createCollection("misc", {
      validator: {
        $jsonSchema: {
          title: "misc",
          additionalProperties: false,
          properties: {
            _id: {},
            code: { type: "string", pattern: "^[a-z]+$", minLength: 2, maxLength: 4 },
            n: { bsonType: "number", minimum: 0, exclusiveMinimum: true, multipleOf: 2 },
            alt: { anyOf: [{ bsonType: "string" }, { bsonType: "bool" }] },
            one: { oneOf: [{ minimum: 0 }, { maximum: 10 }] },
            no: { not: { bsonType: "string" } },
            m: { bsonType: "int", minimum: 2 },
          },
        },
      },
    });
    const err = await serverFailure(
      embedded.db
        .collection("misc")
        .insertOne({ _id: 1 as never, code: "ABCDE", n: 0, alt: 3, one: 5, no: "x", m: 1.5, extra: true }),
    );
    const details = err.errInfo?.details as Document;
    expect(details.title).toBe("misc");
    const [properties, additional] = details.schemaRulesNotSatisfied;
    expect(additional).toEqual({
      operatorName: "additionalProperties",
      specifiedAs: { additionalProperties: false },
      additionalProperties: ["extra"],
    });
    const byName = Object.fromEntries(
      (properties.propertiesNotSatisfied as Document[]).map((p) => [p.propertyName, p.details]),
    );
    expect(byName.code.map((d: Document) => d.operatorName)).toEqual(["pattern", "maxLength"]);
    expect(byName.n).toEqual([
      {
        operatorName: "minimum",
        specifiedAs: { minimum: 0, exclusiveMinimum: true },
        reason: "comparison failed",
        consideredValue: 0,
      },
    ]);
    expect(byName.alt[0]).toMatchObject({ operatorName: "anyOf", schemasNotSatisfied: [{ index: 0 }, { index: 1 }] });
    expect(byName.one).toEqual([
      { operatorName: "oneOf", reason: "more than one subschema matched", matchingSchemaIndexes: [0, 1] },
    ]);
    expect(byName.no).toEqual([{ operatorName: "not", reason: "child expression matched" }]);
    // A subschema's type is checked after its other keywords, as MongoDB orders them.
    expect(byName.m).toEqual([
      { operatorName: "minimum", specifiedAs: { minimum: 2 }, reason: "comparison failed", consideredValue: 1.5 },
      {
        operatorName: "bsonType",
        specifiedAs: { bsonType: "int" },
        reason: "type did not match",
        consideredValue: 1.5,
        consideredType: "double",
      },
    ]);
  });

  it("refuses a schema MongoDB refuses when the collection is created", async () => {
    const empty = await serverFailure(
      embedded.db.createCollection("bad1", { validator: { $jsonSchema: { required: [] } } }),
    );
    expect(empty.code).toBe(9);
    expect(empty.message).toBe("$jsonSchema keyword 'required' cannot be an empty array");
    const unknown = await serverFailure(
      embedded.db.createCollection("bad2", { validator: { $jsonSchema: { foo: 1 } } }),
    );
    expect(unknown.code).toBe(9);
    expect(unknown.message).toBe("Unknown $jsonSchema keyword: foo");
    const unsupported = await serverFailure(
      embedded.db.createCollection("bad3", { validator: { $jsonSchema: { $ref: "#/x" } } }),
    );
    expect(unsupported.message).toBe("$jsonSchema keyword '$ref' is not currently supported");
    const where = await serverFailure(embedded.db.createCollection("bad4", { validator: { $where: "true" } }));
    expect(where.code).toBe(224);
    expect(
      (await embedded.db.listCollections({ name: { $in: ["bad1", "bad2", "bad3", "bad4"] } }).toArray()).length,
    ).toBe(0);
  });

  it("answers $jsonSchema in a find filter", async () => {
    const coll = embedded.db.collection("query_schema");
    await coll.insertMany([
      { _id: 1 as never, a: "x" },
      { _id: 2 as never, a: 2 },
    ]);
    const docs = await coll.find({ $jsonSchema: { properties: { a: { bsonType: "string" } } } }).toArray();
    expect(docs.map((d) => d._id)).toEqual([1]);
  });
});

describe("query-style validators", () => {
  it("explains each failing clause as MongoDB does", async () => {
    await embedded.db.createCollection("contacts", {
      validator: {
        $or: [
          { phone: { $type: "string" } },
          { email: { $regex: /@mongodb\.com$/ } },
          { status: { $in: ["Unknown", "Incomplete"] } },
        ],
      },
    });
    const err = await serverFailure(
      embedded.db.collection("contacts").insertOne({ _id: 1 as never, email: "info@mongodb.co" }),
    );
    expect(err.errInfo).toEqual({
      failingDocumentId: 1,
      details: {
        operatorName: "$or",
        clausesNotSatisfied: [
          {
            index: 0,
            details: {
              operatorName: "$type",
              specifiedAs: { phone: { $type: "string" } },
              reason: "field was missing",
            },
          },
          {
            index: 1,
            details: {
              operatorName: "$regex",
              specifiedAs: { email: { $regex: /@mongodb\.com$/ } },
              reason: "regular expression did not match",
              consideredValue: "info@mongodb.co",
            },
          },
          {
            index: 2,
            details: {
              operatorName: "$in",
              specifiedAs: { status: { $in: ["Unknown", "Incomplete"] } },
              reason: "field was missing",
            },
          },
        ],
      },
    });
  });

  it("reports $expr with its result, and a single comparison directly", async () => {
    await embedded.db.createCollection("expr", {
      validator: { $expr: { $eq: [{ $size: "$a.b" }, { $size: { $setUnion: "$a.b" } }] } },
    });
    const err = await serverFailure(
      embedded.db.collection("expr").insertOne({ _id: 1 as never, a: [{ b: 1 }, { b: 1 }] }),
    );
    expect(err.errInfo?.details).toEqual({
      operatorName: "$expr",
      specifiedAs: { $expr: { $eq: [{ $size: "$a.b" }, { $size: { $setUnion: "$a.b" } }] } },
      reason: "expression did not match",
      expressionResult: false,
    });
    await embedded.db.createCollection("gt", { validator: { qty: { $gt: 5 } } });
    const gt = await serverFailure(embedded.db.collection("gt").insertOne({ _id: 1 as never, qty: 3 }));
    expect(gt.errInfo?.details).toEqual({
      operatorName: "$gt",
      specifiedAs: { qty: { $gt: 5 } },
      reason: "comparison failed",
      consideredValue: 3,
    });
  });
});

describe("where validation applies", () => {
  const validator = { $jsonSchema: { required: ["n"], properties: { n: { bsonType: "int", minimum: 0 } } } };

  it("checks updates, replacements, upserts and findAndModify; a write error carries errInfo", async () => {
    await embedded.db.createCollection("writes", { validator });
    const coll = embedded.db.collection("writes");
    await coll.insertOne({ _id: 1 as never, n: 1 });
    const update = await serverFailure(coll.updateOne({ _id: 1 as never }, { $set: { n: -1 } }));
    expect(update.code).toBe(121);
    expect((update.errInfo as Document).failingDocumentId).toBe(1);
    expect((await serverFailure(coll.replaceOne({ _id: 1 as never }, { m: 1 }))).code).toBe(121);
    expect((await serverFailure(coll.updateOne({ _id: 2 as never }, { $set: { n: -5 } }, { upsert: true }))).code).toBe(
      121,
    );
    expect((await serverFailure(coll.findOneAndUpdate({ _id: 1 as never }, { $inc: { n: -10 } }))).code).toBe(121);
    expect(
      (await serverFailure(coll.findOneAndUpdate({ _id: 3 as never }, { $set: { n: "x" } }, { upsert: true }))).code,
    ).toBe(121);
    expect(await coll.find().toArray()).toEqual([{ _id: 1, n: 1 }]);
    const bulk = await serverFailure(
      coll.insertMany([{ _id: 10 as never, n: 1 }, { _id: 11 as never }, { _id: 12 as never, n: 2 }], {
        ordered: false,
      }),
    );
    expect(
      (bulk as unknown as { writeErrors: Array<{ code: number; errInfo: Document }> }).writeErrors.map((e) => [
        e.code,
        e.errInfo.failingDocumentId,
      ]),
    ).toEqual([[121, 11]]);
    expect(await coll.countDocuments()).toBe(3);
  });

  it("honours bypassDocumentValidation", async () => {
    const coll = embedded.db.collection("writes");
    await coll.insertOne({ _id: 20 as never }, { bypassDocumentValidation: true });
    await coll.updateOne({ _id: 1 as never }, { $set: { n: "free" } }, { bypassDocumentValidation: true });
    expect(await coll.findOne({ _id: 1 as never })).toEqual({ _id: 1, n: "free" });
  });

  it("moderate lets updates of already-invalid documents through; warn and off let everything through", async () => {
    const coll = embedded.db.collection("levels");
    await coll.insertMany([
      { _id: 1 as never, n: 1 },
      { _id: 2 as never, n: "old" },
    ]);
    await embedded.db.command({ collMod: "levels", validator, validationLevel: "moderate" });
    await coll.updateOne({ _id: 2 as never }, { $set: { n: "still invalid" } });
    expect((await serverFailure(coll.updateOne({ _id: 1 as never }, { $set: { n: "x" } }))).code).toBe(121);
    expect(await serverFailure(coll.insertOne({ _id: 3 as never }))).toBeInstanceOf(MongoServerError);
    await embedded.db.command({ collMod: "levels", validationAction: "warn" });
    await coll.insertOne({ _id: 4 as never });
    await embedded.db.command({ collMod: "levels", validationAction: "error", validationLevel: "off" });
    await coll.insertOne({ _id: 5 as never });
    const [info] = await embedded.db.listCollections({ name: "levels" }).toArray();
    expect((info as Document).options).toMatchObject({ validator, validationLevel: "off", validationAction: "error" });
    await embedded.db.command({ collMod: "levels", validator: {}, validationLevel: "strict" });
    await coll.insertOne({ _id: 6 as never });
    expect(await coll.countDocuments()).toBe(5);
  });

  it("refuses unknown validation levels and actions, and unknown collMod fields", async () => {
    const level = await serverFailure(
      embedded.db.createCollection("bad_level", { validationLevel: "sometimes" as never }),
    );
    expect(level.code).toBe(2);
    expect(level.message).toBe(
      "Enumeration value 'sometimes' for field 'create.validationLevel' is not a valid value.",
    );
    const unknown = await serverFailure(embedded.db.command({ collMod: "levels", colour: "blue" }));
    expect(unknown.code).toBe(40415);
  });
});

describe("Mongoose's schema.toJSONSchema() as a validator", () => {
  it("refuses documents that break the schema Mongoose generates", async () => {
    const conn = await mongoose.createConnection(embedded.server.uri, { dbName: "validation_mongoose" }).asPromise();
    try {
      const schema = new Schema({
        name: { type: String, required: true },
        age: Number,
        tags: [{ type: String, enum: ["a", "b"] }],
        scores: { type: Map, of: Number },
      });
      await conn.createCollection("people", { validator: { $jsonSchema: schema.toJSONSchema({ useBsonType: true }) } });
      const people = conn.collection("people");
      await people.insertOne({ name: "Ada", age: 36, tags: ["a"], scores: { x: 1 } });
      expect((await serverFailure(people.insertOne({ age: 36 }))).code).toBe(121);
      expect((await serverFailure(people.insertOne({ name: "Ada", age: "old" }))).code).toBe(121);
      expect((await serverFailure(people.insertOne({ name: "Ada", tags: ["c"] }))).code).toBe(121);
      expect((await serverFailure(people.insertOne({ name: "Ada", scores: { x: "high" } }))).code).toBe(121);
      expect(await people.countDocuments()).toBe(1);
    } finally {
      await conn.close();
    }
  });
});

describe("the 16 MB document limit", () => {
  const big = "x".repeat(16 * 1024 * 1024);

  it("refuses an insert, an update and an upsert that would store more, with MongoDB's codes", async () => {
    const coll = embedded.db.collection("big");
    const insert = await serverFailure(coll.insertOne({ _id: 1 as never, big }));
    expect(insert.code).toBe(2);
    expect(insert.message).toMatch(/^object to insert too large\. size in bytes: \d+, max size: 16777216$/);
    await coll.insertOne({ _id: 2 as never, small: "y" });
    const update = await serverFailure(coll.updateOne({ _id: 2 as never }, { $set: { big } }));
    expect(update.code).toBe(17419);
    const upsert = await serverFailure(coll.replaceOne({ _id: 3 as never }, { big }, { upsert: true }));
    expect(upsert.code).toBe(17420);
    expect(await coll.find().toArray()).toEqual([{ _id: 2, small: "y" }]);
  });
});
