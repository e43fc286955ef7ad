/**
 * Every resource's contract, one line each: their exported operations are the ones the OpenAPI
 * document describes (in this order, each contract's in the order it declares them) and the API
 * fuzzer calls through their route files. A new kind of record is one line here and its models in
 * lib/platform/startup/models.ts; a new operation of a resource is nothing here.
 */
import * as openapi from "@/lib/base/schemas/openapi";
import { type ComponentNames, type Operation, operationsOf } from "@/lib/base/schemas/operation";
import * as answers from "@/lib/resources/answers/contract";
import * as apiKeys from "@/lib/resources/api-keys/contract";
import * as audit from "@/lib/resources/audit/contract";
import * as auth from "@/lib/resources/auth/contract";
import * as companies from "@/lib/resources/companies/contract";
import * as events from "@/lib/resources/events/contract";
import * as jobs from "@/lib/resources/jobs/contract";
import * as mail from "@/lib/resources/mail/contract";
import * as reference from "@/lib/resources/reference/contract";
import * as surveys from "@/lib/resources/surveys/contract";
import * as users from "@/lib/resources/users/contract";
import * as views from "@/lib/resources/views/contract";
import * as webhooks from "@/lib/resources/webhooks/contract";

/**
 * The module `lib/<resource>/contract.ts`: its exported operations are the resource's, and its
 * export `components` names its schemas in the OpenAPI document.
 */
export type Contract = Record<string, unknown> & { components?: ComponentNames };

export const CONTRACTS: Contract[] = [
  users,
  surveys,
  answers,
  reference,
  companies,
  mail,
  apiKeys,
  events,
  webhooks,
  audit,
  jobs,
  views,
  openapi,
  auth,
];

/** Every operation of the service, in the order of the OpenAPI document. */
export const OPERATIONS: Operation[] = CONTRACTS.flatMap((contract) => operationsOf(contract));
