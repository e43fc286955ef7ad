/**
 * Saved views: the only code that reads or writes their collection. `nameKey` is the name
 * lowercased, so that one owner's names are unique per list ignoring case.
 */
import type { ObjectId as Id } from "@/lib/kernel/ids";
import { defineModel, ObjectId, schemaOptions } from "@/lib/kernel/models/define";
import mongoose, { Schema } from "mongoose";

const viewSchema = new Schema(
  {
    company: { type: ObjectId, required: true },
    owner: { type: ObjectId, required: true },
    resource: { type: String, required: true, enum: ["users", "surveys"] },
    name: { type: String, required: true },
    nameKey: { type: String, required: true },
    query: { type: String, default: "" },
    shared: { type: Boolean, required: true },
    createdAt: { type: Date, required: true },
    modifiedAt: { type: Date, required: true },
  },
  { ...schemaOptions, collection: "views" },
);
viewSchema.index({ company: 1, owner: 1, resource: 1, nameKey: 1 }, { unique: true });
viewSchema.index({ company: 1, shared: 1, nameKey: 1, _id: 1 });
export const View = defineModel("View", viewSchema);

export type ViewDoc = mongoose.InferSchemaType<typeof viewSchema> & { _id: mongoose.Types.ObjectId };

/** The one builder of a stored view. */
export function newViewDoc(
  fields: Pick<ViewDoc, "company" | "owner" | "resource" | "name" | "query" | "shared" | "createdAt">,
): ViewDoc {
  return { _id: new mongoose.Types.ObjectId(), nameKey: nameKey(fields.name), modifiedAt: fields.createdAt, ...fields };
}

export const nameKey = (name: string) => name.toLowerCase();

export interface VisibleFilter {
  resource?: "users" | "surveys";
  mine?: boolean;
}

interface Window {
  sort: Record<string, 1 | -1>;
  skip: number;
  limit: number;
  after?: Record<string, unknown>;
}

/** What the caller sees: its own views and those shared with its company. */
const visibleTo = (company: Id, owner: Id, filter: VisibleFilter) => ({
  company,
  ...(filter.mine ? { owner } : { $or: [{ owner }, { shared: true }] }),
  ...(filter.resource ? { resource: filter.resource } : {}),
});

export async function insertView(doc: ViewDoc): Promise<void> {
  await View.create([doc]);
}

export const findView = (company: Id, id: Id) => View.findOne({ _id: id, company }).lean<ViewDoc>();

export const findVisibleViews = (company: Id, owner: Id, filter: VisibleFilter, window: Window) =>
  View.find({ ...visibleTo(company, owner, filter), ...(window.after ? { $and: [window.after] } : {}) })
    .sort(window.sort)
    .skip(window.skip)
    .limit(window.limit)
    .lean<ViewDoc[]>();

export const countVisibleViews = (company: Id, owner: Id, filter: VisibleFilter) =>
  View.countDocuments(visibleTo(company, owner, filter)).exec();

export const countOwnViews = (company: Id, owner: Id, resource: "users" | "surveys") =>
  View.countDocuments({ company, owner, resource }).exec();

/** Sets fields of the company's view; the view after, or `null` when it has none of that id. */
export const updateViewDoc = (company: Id, id: Id, fields: Partial<ViewDoc>) =>
  View.findOneAndUpdate({ _id: id, company }, { $set: fields }, { returnDocument: "after" }).lean<ViewDoc>();

/** Deletes the company's view; whether there was one. */
export const deleteViewDoc = async (company: Id, id: Id): Promise<boolean> =>
  (await View.deleteOne({ _id: id, company })).deletedCount > 0;
