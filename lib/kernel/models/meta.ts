import { Schema } from "mongoose";
import { defineModel, schemaOptions } from "./define";

/** Service-wide singletons keyed by name, such as the bootstrap marker. */
export const Meta = defineModel(
  "Meta",
  new Schema(
    {
      _id: { type: String, required: true },
      companyId: { type: Schema.Types.ObjectId, default: null },
      createdAt: { type: Date, required: true },
      done: { type: Boolean, default: false },
    },
    { ...schemaOptions, collection: "meta" },
  ),
);

/**
 * Runs the one-time fill `name` unless the database records it done, then records it: each start
 * of every process then costs one read instead of scanning a collection (docs/architecture.md#the-flow-of-a-request).
 */
export async function oncePerDatabase(name: string, fill: () => Promise<unknown>): Promise<void> {
  if ((await Meta.findById(name).lean())?.done) return;
  await fill();
  await Meta.updateOne(
    { _id: name },
    { $set: { done: true }, $setOnInsert: { companyId: null, createdAt: new Date() } },
    { upsert: true },
  );
}
