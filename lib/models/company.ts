import { Schema } from "mongoose";
import { defineModel, schemaOptions } from "./define";

const companySchema = new Schema(
  {
    name: { type: String, required: true },
    createdAt: { type: Date, required: true },
    modifiedAt: { type: Date, required: true },
  },
  { ...schemaOptions, collection: "companies" },
);

export const Company = defineModel("SvcCompany", companySchema);
