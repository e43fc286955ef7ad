/**
 * CRUD details where MongoDB's own conformance files (see README.md, "Conformance tests") found the
 * embedded database answering differently: a command's `let` values are expressions, evaluated
 * before any document is read; an `_id` document may hold no `$`-prefixed field.
 */
import { Timestamp, type Document } from "mongodb";
import { beforeEach, describe, expect, it } from "vitest";
import { serverFailure, tempDatabaseForThisFile } from "../testing/temp-server";

const embedded = tempDatabaseForThisFile("crud", "crud_test");

describe("let", () => {
  const coll = () => embedded.db.collection("let_docs");
  beforeEach(async () => {
    await coll().deleteMany({});
    await coll().insertMany([
      { _id: 1 as never, x: 1 },
      { _id: 2 as never, x: 2, name: "name" },
      { _id: 3 as never, x: 3, name: "name" },
    ]);
  });

  it("evaluates each value as an expression in aggregate, a later one using an earlier one", async () => {
    const before = Date.now();
    const docs = await coll()
      .aggregate(
        [
          { $match: { $expr: { $eq: ["$_id", "$$id"] } } },
          {
            $project: {
              _id: 0,
              literal: "$$literal",
              sum: "$$sum",
              twice: "$$twice",
              now: "$$now",
              time: "$$time",
              plain: "$$plain",
            },
          },
        ],
        {
          let: {
            id: 1,
            literal: { $literal: "$bar" },
            sum: { $add: [1, 2] },
            twice: { $multiply: ["$$sum", 2] },
            now: "$$NOW",
            time: "$$CLUSTER_TIME",
            plain: { a: [1, { $toUpper: "b" }] },
          },
        },
      )
      .toArray();
    expect(docs).toHaveLength(1);
    const [doc] = docs as Document[];
    expect(doc).toMatchObject({ literal: "$bar", sum: 3, twice: 6, plain: { a: [1, "B"] } });
    expect(doc.now).toBeInstanceOf(Date);
    expect((doc.now as Date).getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(doc.time).toBeInstanceOf(Timestamp);
  });

  it("binds evaluated values in updateMany, updateOne, findOneAndUpdate, deleteOne and find", async () => {
    await coll().updateMany({ $expr: { $eq: ["$name", "$$name"] } }, [{ $set: { y: "$$y" } }], {
      let: { name: "name", y: { $literal: "bar" } },
    });
    expect(
      await coll()
        .find({}, { sort: { _id: 1 } })
        .toArray(),
    ).toEqual([
      { _id: 1, x: 1 },
      { _id: 2, x: 2, name: "name", y: "bar" },
      { _id: 3, x: 3, name: "name", y: "bar" },
    ]);
    await coll().updateOne({ _id: 1 as never }, [{ $set: { z: "$$z" } }], { let: { z: { $concat: ["a", "b"] } } });
    expect(await coll().findOne({ _id: 1 as never })).toEqual({ _id: 1, x: 1, z: "ab" });
    const after = await coll().findOneAndUpdate({ $expr: { $eq: ["$_id", "$$id"] } }, [{ $set: { w: "$$w" } }], {
      let: { id: { $subtract: [3, 1] }, w: { $literal: "$x" } },
      returnDocument: "after",
    });
    expect(after).toEqual({ _id: 2, x: 2, name: "name", y: "bar", w: "$x" });
    const found = await coll()
      .find({ $expr: { $gt: ["$x", "$$limit"] } }, { let: { limit: { $add: [1, 1] } } })
      .toArray();
    expect(found.map((d) => d._id)).toEqual([3]);
    const deleted = await coll().deleteOne({ $expr: { $eq: ["$_id", "$$id"] } }, { let: { id: { $add: [1, 2] } } });
    expect(deleted.deletedCount).toBe(1);
    expect(await coll().countDocuments()).toBe(2);
  });

  it("binds each command's own values in the same filter sent again (a compiled filter is kept only without $expr)", async () => {
    const filter = { $expr: { $eq: ["$x", "$$wanted"] } };
    for (const wanted of [1, 2, 3, 2]) {
      const found = await coll().find(filter, { let: { wanted } }).toArray();
      expect(found.map((doc) => doc._id)).toEqual([wanted]);
    }
    for (const x of [1, 3, 1]) expect((await coll().find({ x }).toArray()).map((doc) => doc._id)).toEqual([x]);
    expect(await coll().countDocuments({ x: "1" })).toBe(0);
  });

  it("refuses a value that reads a field, and a name MongoDB does not allow, with MongoDB's codes", async () => {
    const field = await serverFailure(
      coll()
        .aggregate([], { let: { a: "$x" } })
        .toArray(),
    );
    expect(field.code).toBe(4890500);
    const root = await serverFailure(coll().updateMany({}, [{ $set: { a: "$$a" } }], { let: { a: "$$ROOT.x" } }));
    expect(root.code).toBe(4890500);
    const upper = await serverFailure(
      coll()
        .aggregate([], { let: { Bad: 1 } })
        .toArray(),
    );
    expect(upper.code).toBe(9);
    expect(upper.message).toBe(
      "Invalid 'let' parameter :: caused by :: 'Bad' starts with an invalid character for a user variable name",
    );
    const dash = await serverFailure(
      coll()
        .find({}, { let: { "a-b": 1 } })
        .toArray(),
    );
    expect(dash.code).toBe(9);
    const now = await serverFailure(coll().deleteMany({}, { let: { NOW: new Date() } }));
    expect(now.code).toBe(4738901);
    expect(await coll().countDocuments()).toBe(3);
  });
});

describe("an _id document with a $-prefixed field", () => {
  const coll = () => embedded.db.collection("dollar_ids");

  it("is refused on insert at any depth, as MongoDB refuses it; dotted names and DBRef-free nesting are kept", async () => {
    const top = await serverFailure(coll().insertOne({ _id: { $a: 1 } as never }));
    expect(top.code).toBe(52);
    expect(top.message).toBe("_id fields may not contain '$'-prefixed fields: $a is not valid for storage.");
    const deep = await serverFailure(coll().insertOne({ _id: { a: [{ b: { $c: 1 } }] } as never }));
    expect(deep.message).toBe("_id fields may not contain '$'-prefixed fields: $c is not valid for storage.");
    await coll().insertOne({ _id: { "a.b": 1 } as never });
    await coll().insertOne({ _id: 5 as never, $top: 1 });
    expect(await coll().countDocuments()).toBe(2);
  });

  it("is refused when an upsert would create it, from the filter, an operator or a replacement", async () => {
    const fromFilter = await serverFailure(
      coll().updateOne({ _id: { $eq: { $a: 1 } } as never }, { $set: { x: 1 } }, { upsert: true }),
    );
    expect(fromFilter.code).toBe(52);
    const fromSet = await serverFailure(coll().updateOne({ x: 9 }, { $set: { _id: { $b: 1 } } }, { upsert: true }));
    expect(fromSet.code).toBe(52);
    const replaced = await serverFailure(coll().replaceOne({ x: 10 }, { _id: { $c: 1 } as never }, { upsert: true }));
    expect(replaced.code).toBe(52);
    const modified = await serverFailure(
      coll().findOneAndReplace({ x: 11 }, { _id: { n: { $d: 1 } } as never }, { upsert: true }),
    );
    expect(modified.code).toBe(52);
    expect(await coll().countDocuments()).toBe(2);
  });
});
