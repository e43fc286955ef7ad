/**
 * Every resource's contract, one line each: their exported operations are the ones the OpenAPI
 * document describes (in this order, each contract's in the order it declares them) and the API
 * fuzzer calls through their route files. A new kind of record is one line here and its models in
 * lib/startup/models.ts; a new operation of a resource is nothing here.
 */
import * as answers from "@/lib/answers/contract";
import * as apiKeys from "@/lib/api-keys/contract";
import * as audit from "@/lib/audit/contract";
import * as auth from "@/lib/auth/contract";
import * as mail from "@/lib/mail/contract";
import * as events from "@/lib/events/contract";
import * as jobs from "@/lib/jobs/contract";
import * as openapi from "@/lib/schemas/openapi";
import * as reference from "@/lib/reference/contract";
import { type ComponentNames, type Operation, operationsOf } from "@/lib/schemas/operation";
import * as surveys from "@/lib/surveys/contract";
import * as users from "@/lib/users/contract";
import * as views from "@/lib/views/contract";
import * as webhooks from "@/lib/webhooks/contract";

/**
 * The module `lib/<resource>/contract.ts`: its exported operations are the resource's, and its
 * export `components` names its schemas in the OpenAPI document.
 */
export type Contract = Record<string, unknown> & { components?: ComponentNames };

export const CONTRACTS: Contract[] = [users, surveys, answers, reference, mail, apiKeys, events, webhooks, audit, jobs, views, openapi, auth];

/** Every operation of the service, in the order of the OpenAPI document. */
export const OPERATIONS: Operation[] = CONTRACTS.flatMap((contract) => operationsOf(contract));
