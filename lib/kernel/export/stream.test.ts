/**
 * The keyset walk of the exports (lib/kernel/export/stream.ts) on the embedded database: every record
 * once, in order, however the batch boundaries fall among records sharing a sort value.
 */
import { newId } from "@/lib/kernel/ids";
import { log } from "@/lib/kernel/log";
import { useTestDatabase } from "@/lib/tools/testing/database";
import type { Document } from "mongodb";
import { describe, expect, it, vi } from "vitest";
import { exportResponse, keysetBatches } from "./stream";

describe("keysetBatches", () => {
  const db = useTestDatabase();

  it("walks every record once, in the order asked, across ties and batch boundaries", async () => {
    const collection = db.mongoose.connection.db!.collection("keyset");
    await collection.createIndex({ group: 1, at: 1, _id: 1 });
    // 5 timestamps, 1 to 9 records each; another group that must never show.
    const docs = Array.from({ length: 5 }, (_, t) =>
      Array.from({ length: 1 + ((t * 4) % 9) }, () => ({
        _id: newId(),
        group: "a",
        at: new Date(Date.UTC(2026, 0, 1 + t)),
      })),
    ).flat();
    await collection.insertMany([
      ...docs,
      ...Array.from({ length: 5 }, () => ({ _id: newId(), group: "b", at: new Date(Date.UTC(2026, 0, 2)) })),
    ]);
    const fields = [
      { name: "at", type: "date" as const },
      { name: "_id", type: "objectId" as const },
    ];
    for (const direction of [1, -1] as const) {
      for (const batchSize of [1, 2, 3, 7, docs.length, docs.length + 1]) {
        const sort = { at: direction, _id: direction };
        const read = (condition: Document | undefined, limit: number) =>
          collection.find({ group: "a", ...(condition ? { $and: [condition] } : {}) }, { sort, limit }).toArray();
        const batches: Document[][] = [];
        for await (const batch of keysetBatches(read, { fields, direction }, (doc) => [doc.at, doc._id], batchSize))
          batches.push(batch);
        const walked = batches.flat().map((doc) => String(doc._id));
        const expected = (await collection.find({ group: "a" }, { sort }).toArray()).map((doc) => String(doc._id));
        expect(walked, `direction ${direction}, batches of ${batchSize}`).toEqual(expected);
        for (const batch of batches.slice(0, -1)) expect(batch).toHaveLength(batchSize);
      }
    }
  });
});

describe("exportResponse", () => {
  it("a client that cancels while a batch is being read ends the walk quietly: no error, nothing enqueued after", async () => {
    const error = vi.spyOn(log(), "error");
    let release!: () => void;
    let returned = false;
    async function* batches() {
      try {
        yield [{ n: 1 }];
        await new Promise<void>((resolve) => (release = resolve));
        yield [{ n: 2 }];
      } finally {
        returned = true;
      }
    }
    const response = exportResponse({
      format: "ndjson",
      name: "things",
      total: 2,
      batches: batches(),
      columns: ["n"],
      rows: (batch) => batch.map((record) => [String(record.n)]),
      records: (batch) => batch,
      requestId: "req-cancel",
    });
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('{"n":1}\n');
    // The second batch is being read (the stream pulls ahead) when the client goes away.
    await vi.waitFor(() => expect(release).toBeTypeOf("function"));
    const cancelling = reader.cancel();
    release();
    await cancelling;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(error).not.toHaveBeenCalled();
    expect(returned).toBe(true);
    error.mockRestore();
  });
});
