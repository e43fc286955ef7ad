/** The reference data operations bound to their service: what the route files of the four kinds export. */
import type { z } from "zod";
import type { Operation } from "@/lib/schemas/operation";
import { created, handle } from "@/lib/http/route";
import type {
  CreateAccessRoleBody,
  CreateNamedBody,
  HoldersQuery,
  ListReferenceQuery,
  ReferenceIdParams,
  UpdateAccessRoleBody,
  UpdateNamedBody,
} from "@/lib/schemas/reference";
import type { ReferenceKind } from "@/lib/reference/repository";
import { countReferenceHolders, createReference, getReference, listReference, updateReference } from "@/lib/services/reference";
import * as reference from "@/lib/reference/contract";

type CreateBody<K extends ReferenceKind> = K extends "accessRoles" ? CreateAccessRoleBody : CreateNamedBody;
type UpdateBody<K extends ReferenceKind> = K extends "accessRoles" ? UpdateAccessRoleBody : UpdateNamedBody;

function bind<K extends ReferenceKind>(
  kind: K,
  operations: {
    list: Operation<typeof ListReferenceQuery, undefined, undefined, true>;
    create: Operation<undefined, z.ZodType<CreateBody<K>>, undefined, true>;
    read: Operation<undefined, undefined, typeof ReferenceIdParams, true>;
    update: Operation<undefined, z.ZodType<UpdateBody<K>>, typeof ReferenceIdParams, true>;
    holders: Operation<typeof HoldersQuery, undefined, undefined, true>;
  },
) {
  return {
    list: handle(operations.list, ({ auth, query }) => listReference(auth, kind, query)),
    create: handle(operations.create, async ({ auth, body }) => {
      const record = await createReference(auth, kind, body);
      return created(record, `${operations.create.path}/${record._id}`);
    }),
    read: handle(operations.read, ({ auth, params }) => getReference(auth, kind, params.id)),
    update: handle(operations.update, ({ auth, params, body }) => updateReference(auth, kind, params.id, body)),
    holders: handle(operations.holders, ({ auth, query }) => countReferenceHolders(auth, kind, query)),
  };
}

export const accessRoles = bind("accessRoles", reference.accessRoles);
export const jobTitles = bind("jobTitles", reference.jobTitles);
export const properties = bind("properties", reference.properties);
export const bots = bind("bots", reference.bots);
