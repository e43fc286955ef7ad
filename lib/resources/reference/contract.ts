/** The reference data operations of the HTTP API (docs/api.md#reference-data), four kinds alike. */
import { type ComponentNames, operation, pagingParameters, repeated } from "@/lib/base/schemas/operation";
import {
  AccessRoleList,
  AccessRoleRecord,
  BotList,
  BotRecord,
  CreateAccessRoleBody,
  CreateNamedBody,
  HoldersList,
  HoldersQuery,
  JobTitleList,
  JobTitleRecord,
  ListReferenceQuery,
  PropertyList,
  PropertyRecord,
  ReferenceIdParams,
  SERVER_MANAGED_REFERENCE_FIELDS,
  UpdateAccessRoleBody,
  UpdateNamedBody,
} from "@/lib/resources/reference/schemas";
import type { z } from "zod";

/** What an update of an access role adds to the rules of every kind. */
const LAST_ADMIN_ROLE =
  " A company always keeps an access role with `isAdmin: true` held by an active user: `isAdmin: false` on the last such role is `409 conflict`, and nothing of the PATCH is applied.";

function referenceOperations<B extends z.ZodType, U extends z.ZodType, L extends z.ZodObject, R extends z.ZodObject>(
  base: string,
  bodies: { create: B; update: U },
  list: L,
  record: R,
  what: { one: string; many: string; updateRule?: string; createRule?: string },
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
      body: bodies.create,
      ignoreBodyFields: SERVER_MANAGED_REFERENCE_FIELDS,
      doc: {
        tag: "Reference data",
        summary: `Create a ${what.one}`,
        description: `Names are unique within the company (\`409 conflict\`).${what.createRule ?? ""}`,
        status: 201,
        response: record,
        errors: ["conflict"],
      },
    }),
    holders: operation({
      method: "get",
      path: `${base}/holders`,
      scope: "reference:read",
      query: HoldersQuery,
      doc: {
        tag: "Reference data",
        summary: `Count the users holding ${what.many}`,
        description: `For each \`id\` asked (1 to 100), in the order asked, how many users of the company hold that ${what.one}, active or not, counted from the users at the time of the request (never stored). An id that names no ${what.one} of the company counts 0.`,
        status: 200,
        response: HoldersList,
        parameters: { id: { description: repeated(`Ids of ${what.many}.`) } },
      },
    }),
    read: operation({
      method: "get",
      path: `${base}/{id}`,
      scope: "reference:read",
      params: ReferenceIdParams,
      doc: { tag: "Reference data", summary: `Read a ${what.one}`, status: 200, response: record },
    }),
    update: operation({
      method: "patch",
      path: `${base}/{id}`,
      scope: "reference:write",
      admin: true,
      params: ReferenceIdParams,
      body: bodies.update,
      ignoreBodyFields: SERVER_MANAGED_REFERENCE_FIELDS,
      doc: {
        tag: "Reference data",
        summary: `Update a ${what.one}`,
        description: `Send only the fields to change, under the rules of a create. Names are unique within the company (\`409 conflict\`). \`modifiedAt\` always advances.${what.updateRule ?? ""}`,
        status: 200,
        response: record,
        errors: ["conflict"],
      },
    }),
  };
}

export const accessRoles = referenceOperations(
  "/v2/access-roles",
  { create: CreateAccessRoleBody, update: UpdateAccessRoleBody },
  AccessRoleList,
  AccessRoleRecord,
  {
    one: "access role",
    many: "access roles",
    createRule:
      " An API key creating a role with `isAdmin: true` needs the scope `admin` as well (`403 insufficient_scope`, nothing created).",
    updateRule: `${LAST_ADMIN_ROLE} An API key changing \`isAdmin\` needs the scope \`admin\` as well (\`403 insufficient_scope\`, nothing applied).`,
  },
);
export const jobTitles = referenceOperations(
  "/v2/job-titles",
  { create: CreateNamedBody, update: UpdateNamedBody },
  JobTitleList,
  JobTitleRecord,
  { one: "job title", many: "job titles" },
);
export const properties = referenceOperations(
  "/v2/properties",
  { create: CreateNamedBody, update: UpdateNamedBody },
  PropertyList,
  PropertyRecord,
  { one: "property", many: "properties" },
);
export const bots = referenceOperations(
  "/v2/bots",
  { create: CreateNamedBody, update: UpdateNamedBody },
  BotList,
  BotRecord,
  { one: "bot", many: "bots" },
);

/** The names of this resource's schemas in the OpenAPI document. */
export const components: ComponentNames = {
  records: { AccessRole: AccessRoleRecord, JobTitle: JobTitleRecord, Property: PropertyRecord, Bot: BotRecord },
  answers: {
    AccessRoleAnswer: AccessRoleRecord,
    AccessRoleList,
    JobTitleAnswer: JobTitleRecord,
    JobTitleList,
    PropertyAnswer: PropertyRecord,
    PropertyList,
    BotAnswer: BotRecord,
    BotList,
    HoldersList,
  },
};
