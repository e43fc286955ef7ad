/**
 * The company's reference data (docs/api.md#reference-data): access roles, job titles, properties and bots.
 * Each is a named record of one company; the admin pages list them for their pickers.
 */
import {
  isoDateTime,
  listEnvelope,
  objectId,
  pagingQuery,
  queryIdList,
  singleLineText,
} from "@/lib/base/schemas/common";
import { z } from "zod";

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

/** A PATCH sends only the fields it changes, under the rules of a create. */
export const UpdateAccessRoleBody = z.strictObject({ name: name.optional(), isAdmin: z.boolean().optional() });
export type UpdateAccessRoleBody = z.infer<typeof UpdateAccessRoleBody>;
export const UpdateNamedBody = z.strictObject({ name: name.optional() });
export type UpdateNamedBody = z.infer<typeof UpdateNamedBody>;

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

/** The records whose holders to count: ids of one kind, at most a page of the admin pages. */
export const HoldersQuery = z.object({ id: queryIdList });
export type HoldersQuery = z.infer<typeof HoldersQuery>;

/** How many users of the company hold each record asked for, in the order asked. */
export const HoldersList = z.object({
  data: z.object({ holders: z.array(z.object({ _id: objectId, users: z.number().int() })) }),
});
export type HoldersList = z.infer<typeof HoldersList>;

export const SERVER_MANAGED_REFERENCE_FIELDS = ["_id", "company", "createdAt", "modifiedAt", "__v"];

export const ReferenceIdParams = z.object({ id: objectId });
