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
