import mongoose, { Schema } from "mongoose";
import { defineModel, ObjectId, schemaOptions } from "./define";

const ids = { type: [{ type: ObjectId }], default: [] };

const membershipSchema = new Schema(
  {
    companyId: { type: ObjectId, required: true },
    /**
     * Whether the user is active in this company: deactivating a member of one company leaves
     * their other memberships alone. Absent (records of earlier versions) means active.
     */
    isActive: { type: Boolean, default: true },
    hierarchy: {
      boss: ids,
      peers: ids,
      subordinate: ids,
    },
  },
  { strict: "throw" },
);

const userSchema = new Schema(
  {
    name: {
      type: new Schema(
        { displayName: String, names: String, lastName: String, secondLastName: String },
        { _id: false, strict: "throw" },
      ),
      default: null,
    },
    /** Stored lowercased; unique across the service. */
    email: { type: String, required: true },
    accessRoles: ids,
    properties: ids,
    job: { type: ObjectId, default: null },
    bot: { type: ObjectId, default: null },
    phone: { type: String, default: null },
    isOnline: { type: Boolean, required: true, default: false },
    termsConditions: { type: Boolean, required: true, default: false },
    /** Keywords of the name and e-mail (lib/services/search.ts). */
    search: { type: [String], default: [] },
    companies: { type: [membershipSchema], default: [] },
    lastRequestDate: { type: Date, default: null },
    createdAt: { type: Date, required: true },
    modifiedAt: { type: Date, required: true },
    extensions: { type: Schema.Types.Mixed, default: () => ({}) },
  },
  { ...schemaOptions, collection: "users" },
);

userSchema.index({ email: 1 }, { unique: true });
// The default list: one company, newest modifiedAt first, _id breaking ties (and paging stable).
userSchema.index({ "companies.companyId": 1, modifiedAt: 1, _id: 1 });
// `isActive` is each membership's own flag: the lists match it with $elemMatch on the index above.
// (MongoDB could index companies.companyId with companies.isActive; the embedded database refuses
// two paths of one array as "parallel arrays".)
userSchema.index({ "companies.companyId": 1, createdAt: 1, _id: 1 });
// `search` and `companies` are both arrays, so they cannot share a compound index.
userSchema.index({ search: 1 });
userSchema.index({ accessRoles: 1 });
userSchema.index({ properties: 1 });
userSchema.index({ job: 1 });
userSchema.index({ bot: 1 });
userSchema.index({ "companies.hierarchy.boss": 1 });
userSchema.index({ "companies.hierarchy.peers": 1 });
userSchema.index({ "companies.hierarchy.subordinate": 1 });

export const User = defineModel("SvcUser", userSchema);

/** A user as stored (what `.lean()` reads). */
export type UserDoc = mongoose.InferSchemaType<typeof userSchema> & { _id: mongoose.Types.ObjectId };
