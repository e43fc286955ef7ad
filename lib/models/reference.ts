/** The company's reference data: access roles, job titles, properties, bots (docs/api.md#reference-data). */
import { Schema } from "mongoose";
import { defineModel, ObjectId, schemaOptions } from "./define";

function namedSchema(collection: string, extra: Record<string, unknown> = {}) {
  const schema = new Schema(
    {
      company: { type: ObjectId, required: true },
      name: { type: String, required: true },
      createdAt: { type: Date, required: true },
      modifiedAt: { type: Date, required: true },
      ...extra,
    },
    { ...schemaOptions, collection },
  );
  // Names are unique within a company; the list is sorted by name.
  schema.index({ company: 1, name: 1 }, { unique: true });
  return schema;
}

export const AccessRole = defineModel(
  "SvcAccessRole",
  new Schema(
    {
      company: { type: ObjectId, required: true },
      name: { type: String, required: true },
      isAdmin: { type: Boolean, required: true, default: false },
      createdAt: { type: Date, required: true },
      modifiedAt: { type: Date, required: true },
    },
    { ...schemaOptions, collection: "accessroles" },
  ).index({ company: 1, name: 1 }, { unique: true }),
);
export const JobTitle = defineModel("SvcJobTitle", namedSchema("jobtitles"));
export const Property = defineModel("SvcProperty", namedSchema("properties"));
export const Bot = defineModel("SvcBot", namedSchema("bots"));
