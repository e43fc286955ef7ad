/**
 * Every operation the OpenAPI document describes, read from the resources' contracts, in the
 * order of the document. The document test checks that every route file under `app/v2` serves
 * one of these paths and that every listed path has its route file.
 */
import * as answers from "@/lib/answers/contract";
import * as apiKeys from "@/lib/api-keys/contract";
import * as auth from "@/lib/auth/contract";
import type { Method, Operation } from "@/lib/schemas/operation";
import * as outbox from "@/lib/mail/contract";
import * as reference from "@/lib/reference/contract";
import * as surveys from "@/lib/surveys/contract";
import * as users from "@/lib/users/contract";
import * as openapi from "./contract";

export const OPERATIONS: Operation[] = [
  users.list,
  users.create,
  users.me,
  users.read,
  users.update,
  surveys.list,
  surveys.create,
  surveys.read,
  surveys.update,
  surveys.revisions,
  surveys.putContent,
  answers.answer,
  answers.list,
  answers.exportCsv,
  answers.results,
  ...[reference.accessRoles, reference.jobTitles, reference.properties, reference.bots].flatMap((kind) => [kind.list, kind.create, kind.holders, kind.read, kind.update]),
  outbox.list,
  apiKeys.list,
  apiKeys.create,
  apiKeys.revoke,
  openapi.document,
  auth.login,
];

/** The operations grouped by path, in the order of {@link OPERATIONS}. */
export const PATHS: Map<string, Partial<Record<Method, Operation>>> = new Map();
for (const operation of OPERATIONS) {
  const item = PATHS.get(operation.path) ?? {};
  if (item[operation.method]) throw new Error(`${operation.method.toUpperCase()} ${operation.path} is declared twice`);
  item[operation.method] = operation;
  PATHS.set(operation.path, item);
}
