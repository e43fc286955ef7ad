/**
 * The company's reference data (docs/api.md#reference-data): access roles, job titles, properties and bots.
 * Each is a named record of one company; the admin pages list them for their pickers.
 */
import { z } from "zod";
import { isoDateTime, listEnvelope, objectId, pagingQuery, singleLineText } from "./common";

const name = singleLineText({ min: 1, max: 200 });

const referenceRecord = {
  _id: objectId,
  name: z.string(),
  company: objectId,
  createdAt: isoDateTime,
  modifiedAt: isoDateTime,
};

export const AccessRoleRecord = z.object({ ...referenceRecord, isAdmin: z.boolean() });
export type AccessRoleRecord = z.infer<typeof AccessRoleRecord>;
export const JobTitleRecord = z.object(referenceRecord);
export type JobTitleRecord = z.infer<typeof JobTitleRecord>;
export const PropertyRecord = z.object(referenceRecord);
export type PropertyRecord = z.infer<typeof PropertyRecord>;
export const BotRecord = z.object(referenceRecord);
export type BotRecord = z.infer<typeof BotRecord>;

export const CreateAccessRoleBody = z.strictObject({ name, isAdmin: z.boolean().default(false) });
export type CreateAccessRoleBody = z.infer<typeof CreateAccessRoleBody>;
export const CreateNamedBody = z.strictObject({ name });
export type CreateNamedBody = z.infer<typeof CreateNamedBody>;

/** Reference lists are short and feed pickers: a larger default page, sorted by name. */
export const ListReferenceQuery = z.object({
  search: singleLineText({ max: 200 }).optional(),
  ...pagingQuery(100, 1000),
});
export type ListReferenceQuery = z.infer<typeof ListReferenceQuery>;

export const AccessRoleList = listEnvelope("accessRoles", AccessRoleRecord);
export const JobTitleList = listEnvelope("jobTitles", JobTitleRecord);
export const PropertyList = listEnvelope("properties", PropertyRecord);
export const BotList = listEnvelope("bots", BotRecord);

export const SERVER_MANAGED_REFERENCE_FIELDS = ["_id", "company", "createdAt", "modifiedAt", "__v"];

export const ReferenceIdParams = z.object({ id: objectId });
