import { inTransaction } from "@/lib/kernel/db/transaction";
import { useTestDatabase } from "@/lib/tools/testing/database";
import mongoose from "mongoose";
import { describe, expect, it } from "vitest";
import { appendEvent, Event, EventSequence, findEventsAfter } from "./repository";

const event = (company: mongoose.Types.ObjectId, n: number) => ({
  company,
  type: "user.updated",
  resource: { type: "user", id: String(n) },
  changes: ["phone"],
  actor: null,
  requestId: null,
  createdAt: new Date(),
});

describe("the events of a company", () => {
  useTestDatabase();

  it("are numbered 1, 2, 3... once committed, even when transactions race", async () => {
    await Promise.all([Event.createIndexes(), EventSequence.createIndexes()]);
    const company = new mongoose.Types.ObjectId();
    await Promise.all(Array.from({ length: 20 }, (_, n) => inTransaction(() => appendEvent(event(company, n)))));
    const events = await findEventsAfter(company, 0, [], 100);
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 20 }, (_, n) => n + 1));
    expect(new Set(events.map((e) => e.resource.id)).size).toBe(20);
  });

  it("are numbered once each while readers race each other and the writers, and no follower skips one", async () => {
    const company = new mongoose.Types.ObjectId();
    let writing = true;
    const follow = async () => {
      const seen: number[] = [];
      let at = 0;
      while (writing || (await findEventsAfter(company, at, [], 1)).length > 0) {
        for (const found of await findEventsAfter(company, at, [], 7)) {
          seen.push(found.seq);
          at = found.seq;
        }
      }
      return seen;
    };
    const readers = Array.from({ length: 3 }, follow);
    await Promise.all(Array.from({ length: 40 }, (_, n) => inTransaction(() => appendEvent(event(company, n)))));
    writing = false;
    const everyNumber = Array.from({ length: 40 }, (_, n) => n + 1);
    for (const seen of await Promise.all(readers)) expect(seen).toEqual(everyNumber);
    expect(await Event.countDocuments({ company, pending: true })).toBe(0);
  });

  it("are written only inside a transaction, and a transaction that fails leaves none", async () => {
    const company = new mongoose.Types.ObjectId();
    await expect(appendEvent(event(company, 1))).rejects.toThrow(/inTransaction/);
    await expect(
      inTransaction(async () => {
        await appendEvent(event(company, 1));
        throw new Error("the change failed");
      }),
    ).rejects.toThrow("the change failed");
    expect(await Event.countDocuments({ company })).toBe(0);
  });
});
