/** A worker entry for the tests of lib/kernel/db/workers.ts: tasks that show where and how they ran. */
import { serveTasks } from "@/lib/kernel/db/workers";
import { ServiceError } from "@/lib/kernel/errors";
import type { Document } from "mongodb";
import mongoose from "mongoose";
import { threadId } from "node:worker_threads";

serveTasks({
  threadId: async () => threadId,
  /** What arrived: each argument's class and its value as text. */
  describe: async (args: Document) =>
    Object.fromEntries(
      Object.entries(args).map(([key, value]) => [key, [(value as object)?.constructor?.name, String(value)]]),
    ),
  fail: async () => {
    throw Object.assign(new RangeError("no such thing"), { code: 42 });
  },
  refuse: async () => {
    throw new ServiceError("conflict", "taken", [{ path: "email", message: "is already in use" }], { "X-Why": "test" });
  },
  count: async ({ collection }: { collection: string }) => {
    const db = mongoose.connection.db;
    if (!db) throw new Error("not connected");
    return db.collection(collection).countDocuments();
  },
  exit: async () => process.exit(3),
});
