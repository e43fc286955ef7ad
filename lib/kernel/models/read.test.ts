import { useTestDatabase } from "@/lib/tools/testing/database";
import { Binary, type CommandStartedEvent, Decimal128, Double, Int32, Long, ObjectId } from "mongodb";
import mongoose, { Schema } from "mongoose";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { aggregateDocs, findDocs, findOneDoc } from "./read";

describe("reads in one command", () => {
  const db = useTestDatabase();

  // A connection of its own, with command monitoring, so the tests see what went over the wire.
  let connection: mongoose.Connection;
  const itemSchema = new Schema({ n: Number, group: String }, { versionKey: false });
  const itemModel = (on: mongoose.Connection) => on.model("ReadItem", itemSchema);
  let Item: ReturnType<typeof itemModel>;
  const sent: string[] = [];

  beforeAll(async () => {
    connection = await mongoose.createConnection(db.uri, { dbName: "reads", monitorCommands: true }).asPromise();
    connection.getClient().on("commandStarted", (event: CommandStartedEvent) => sent.push(event.commandName));
    Item = itemModel(connection);
    const docs = Array.from({ length: 10_050 }, (_, n) => ({ n, group: n % 3 === 0 ? "fizz" : "other" }));
    for (let start = 0; start < docs.length; start += 2_000)
      await Item.collection.insertMany(docs.slice(start, start + 2_000));
  });

  afterAll(() => connection.close());

  beforeEach(() => {
    sent.length = 0;
  });

  describe("findDocs", () => {
    it("reads a sorted, skipped, limited and projected page in one find command", async () => {
      const page = await findDocs<{ n: number; group?: string }>(
        Item,
        { group: "fizz" },
        { sort: { n: -1 }, skip: 2, limit: 3, projection: { _id: 0, n: 1 } },
      );
      // Multiples of 3 from the top, past the first two (10,047 and 10,044).
      expect(page).toEqual([{ n: 10_041 }, { n: 10_038 }, { n: 10_035 }]);
      expect(sent).toEqual(["find"]);
    });

    it("answers the same documents as a driver cursor", async () => {
      const options = { sort: { n: 1 }, skip: 100, limit: 100 } as const;
      const viaCommand = await findDocs(Item, { n: { $gte: 5_000 } }, options);
      const viaCursor = await Item.collection.find({ n: { $gte: 5_000 } }, options).toArray();
      expect(viaCommand).toEqual(viaCursor);
      expect(viaCommand).toHaveLength(100);
    });

    it("decodes every BSON type as the driver's cursor does, though it decodes the reply itself", async () => {
      const odd = {
        _id: new ObjectId(),
        long: Long.fromString("9007199254740993"),
        small: Long.fromNumber(7),
        decimal: Decimal128.fromString("1.10"),
        int: new Int32(5),
        double: new Double(2),
        at: new Date("2026-11-30T00:00:00.000Z"),
        bytes: new Binary(Buffer.from("hi")),
        pattern: /a.b/i,
        nested: { list: [1, { deep: null }], empty: {} },
      };
      await Item.collection.insertOne(odd as never);
      const viaCommand = await findDocs(Item, { _id: odd._id });
      const viaCursor = await Item.collection.find({ _id: odd._id }).toArray();
      expect(viaCommand).toEqual(viaCursor);
      expect(viaCommand[0]).toMatchObject({ long: odd.long, small: 7, nested: { list: [1, { deep: null }] } });
      await Item.collection.deleteOne({ _id: odd._id });
    });

    it("refuses a malformed filter with the database's error", async () => {
      await expect(findDocs(Item, { n: { $bad: 1 } })).rejects.toMatchObject({ code: 2 });
    });

    it("reads a result larger than one reply through a cursor, closing the first one", async () => {
      const all = await findDocs<{ n: number }>(Item, {}, { sort: { n: 1 } });
      expect(all).toHaveLength(10_050);
      expect(all.every((doc, index) => doc.n === index)).toBe(true);
      expect(sent.slice(0, 3)).toEqual(["find", "killCursors", "find"]);
      expect(sent.slice(3).every((name) => name === "getMore")).toBe(true);
    });

    it("answers an empty list when nothing matches", async () => {
      expect(await findDocs(Item, { group: "none" }, { limit: 10 })).toEqual([]);
    });
  });

  describe("findOneDoc", () => {
    it("reads one document or null", async () => {
      expect(await findOneDoc<{ n: number }>(Item, { n: 7 }, { _id: 0, n: 1 })).toEqual({ n: 7 });
      expect(await findOneDoc(Item, { n: -1 })).toBeNull();
      expect(sent).toEqual(["find", "find"]);
    });
  });

  describe("aggregateDocs", () => {
    it("answers the pipeline's result in one aggregate command", async () => {
      const groups = await aggregateDocs<{ _id: string; count: number }>(Item, [
        { $group: { _id: "$group", count: { $sum: 1 } } },
        { $sort: { _id: 1 } },
      ]);
      expect(groups).toEqual([
        { _id: "fizz", count: 3_350 },
        { _id: "other", count: 6_700 },
      ]);
      expect(sent).toEqual(["aggregate"]);
    });

    it("pages on through a cursor past one reply", async () => {
      const all = await aggregateDocs<{ n: number }>(Item, [{ $sort: { n: 1 } }, { $project: { _id: 0, n: 1 } }]);
      expect(all).toHaveLength(10_050);
      expect(all[10_049]).toEqual({ n: 10_049 });
      expect(sent.slice(0, 3)).toEqual(["aggregate", "killCursors", "aggregate"]);
    });
  });
});
