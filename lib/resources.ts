/**
 * Every resource of the service, one line each: its contract, whose exported operations the
 * OpenAPI document describes (in this order, each contract's in the order it declares them) and
 * the API fuzzer calls through their route files, and the models whose indexes `ready()` builds.
 * A new kind of record is one line here; a new operation of a resource is nothing here.
 */
import * as answers from "@/lib/answers/contract";
import * as apiKeys from "@/lib/api-keys/contract";
import * as audit from "@/lib/audit/contract";
import { AuditEntryModel } from "@/lib/audit/repository";
import { ApiKey } from "@/lib/api-keys/repository";
import * as auth from "@/lib/auth/contract";
import { Company } from "@/lib/companies/repository";
import { Credential, Session } from "@/lib/credentials/repository";
import * as mail from "@/lib/mail/contract";
import { Invitation, OutboxMail } from "@/lib/mail/repository";
import * as events from "@/lib/events/contract";
import * as jobs from "@/lib/jobs/contract";
import { Job, JobFileChunk } from "@/lib/jobs/repository";
import { Event, EventSequence } from "@/lib/events/repository";
import { Meta } from "@/lib/models";
import * as openapi from "@/lib/schemas/openapi";
import * as reference from "@/lib/reference/contract";
import { AccessRole, Bot, JobTitle, Property } from "@/lib/reference/repository";
import { IdempotencyRecord, RateCounter } from "@/lib/requests/repository";
import { type ComponentNames, type Operation, operationsOf } from "@/lib/schemas/operation";
import * as surveys from "@/lib/surveys/contract";
import { Answer, AnswerTally, Question, SurveyChat, SurveyRevision } from "@/lib/surveys/parts";
import { Survey } from "@/lib/surveys/repository";
import * as users from "@/lib/users/contract";
import { User } from "@/lib/users/repository";
import * as views from "@/lib/views/contract";
import { View } from "@/lib/views/repository";
import * as webhooks from "@/lib/webhooks/contract";
import { Delivery, Webhook } from "@/lib/webhooks/repository";

export interface Resource {
  /**
   * The module `lib/<resource>/contract.ts`: its exported operations are the resource's, and its
   * export `components` names its schemas in the OpenAPI document.
   */
  contract?: Record<string, unknown> & { components?: ComponentNames };
  /** The Mongoose models of its collections. */
  models?: { modelName: string; createIndexes(): Promise<unknown> }[];
}

export const RESOURCES: Resource[] = [
  { contract: users, models: [User] },
  { contract: surveys, models: [Survey, SurveyChat, Question, SurveyRevision] },
  { contract: answers, models: [Answer, AnswerTally] },
  { contract: reference, models: [AccessRole, JobTitle, Property, Bot] },
  { contract: mail, models: [OutboxMail, Invitation] },
  { contract: apiKeys, models: [ApiKey] },
  { contract: events, models: [Event, EventSequence] },
  { contract: webhooks, models: [Webhook, Delivery] },
  { contract: audit, models: [AuditEntryModel] },
  { contract: jobs, models: [Job, JobFileChunk] },
  { contract: views, models: [View] },
  { contract: openapi },
  { contract: auth },
  { models: [Company] },
  { models: [Credential, Session] },
  { models: [RateCounter, IdempotencyRecord] },
  // Service-wide markers: the bootstrap and the back-fills.
  { models: [Meta] },
];

/** Every operation of the service, in the order of the OpenAPI document. */
export const OPERATIONS: Operation[] = RESOURCES.flatMap((resource) => (resource.contract ? operationsOf(resource.contract) : []));

/** Every model, for the indexes built at start. */
export const MODELS = RESOURCES.flatMap((resource) => resource.models ?? []);
