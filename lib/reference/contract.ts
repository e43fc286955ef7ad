/** The reference data operations of the HTTP API (docs/api.md#reference-data), four kinds alike. */
import type { z } from "zod";
import { operation, pagingParameters } from "@/lib/schemas/operation";
import {
  AccessRoleList,
  AccessRoleRecord,
  BotList,
  BotRecord,
  CreateAccessRoleBody,
  CreateNamedBody,
  JobTitleList,
  JobTitleRecord,
  ListReferenceQuery,
  PropertyList,
  PropertyRecord,
  ReferenceIdParams,
  SERVER_MANAGED_REFERENCE_FIELDS,
} from "@/lib/schemas/reference";

function referenceOperations<B extends z.ZodType>(
  base: string,
  body: B,
  list: z.ZodObject,
  record: z.ZodObject,
  what: { one: string; many: string },
) {
  return {
    list: operation({
      method: "get",
      path: base,
      scope: "reference:read",
      query: ListReferenceQuery,
      doc: {
        tag: "Reference data",
        summary: `List ${what.many}`,
        description: `The company's ${what.many}, sorted by name. \`search\` matches a case-insensitive prefix of the name.`,
        status: 200,
        response: list,
        parameters: pagingParameters,
      },
    }),
    create: operation({
      method: "post",
      path: base,
      scope: "reference:write",
      admin: true,
      body,
      ignoreBodyFields: SERVER_MANAGED_REFERENCE_FIELDS,
      doc: {
        tag: "Reference data",
        summary: `Create a ${what.one}`,
        description: `Names are unique within the company (\`409 conflict\`).`,
        status: 201,
        response: record,
        errors: ["conflict"],
      },
    }),
    read: operation({
      method: "get",
      path: `${base}/{id}`,
      scope: "reference:read",
      params: ReferenceIdParams,
      doc: { tag: "Reference data", summary: `Read a ${what.one}`, status: 200, response: record },
    }),
  };
}

export const accessRoles = referenceOperations("/v2/access-roles", CreateAccessRoleBody, AccessRoleList, AccessRoleRecord, { one: "access role", many: "access roles" });
export const jobTitles = referenceOperations("/v2/job-titles", CreateNamedBody, JobTitleList, JobTitleRecord, { one: "job title", many: "job titles" });
export const properties = referenceOperations("/v2/properties", CreateNamedBody, PropertyList, PropertyRecord, { one: "property", many: "properties" });
export const bots = referenceOperations("/v2/bots", CreateNamedBody, BotList, BotRecord, { one: "bot", many: "bots" });
