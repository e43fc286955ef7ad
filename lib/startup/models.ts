/**
 * Every Mongoose model of the service, whose indexes ready() builds at start. It imports
 * repositories only, so start-up does not load the contracts (docs/architecture.md#layout); a new
 * kind of record adds its models here and its contract to lib/resources.ts.
 */
import { ApiKey } from "@/lib/api-keys/repository";
import { AuditEntryModel } from "@/lib/audit/repository";
import { Company } from "@/lib/companies/repository";
import { ListCount } from "@/lib/counts/repository";
import { Credential, Session } from "@/lib/credentials/repository";
import { Event, EventSequence } from "@/lib/events/repository";
import { Job, JobFileChunk } from "@/lib/jobs/repository";
import { Invitation, OutboxMail } from "@/lib/mail/repository";
import { Meta } from "@/lib/models";
import { AccessRole, Bot, JobTitle, Property } from "@/lib/reference/repository";
import { IdempotencyRecord, RateCounter } from "@/lib/requests/repository";
import { Answer, AnswerTally, Question, SurveyChat, SurveyRevision } from "@/lib/surveys/parts";
import { Survey } from "@/lib/surveys/repository";
import { User } from "@/lib/users/repository";
import { View } from "@/lib/views/repository";
import { Delivery, Webhook } from "@/lib/webhooks/repository";

export const MODELS: { modelName: string; createIndexes(): Promise<unknown> }[] = [
  User,
  Survey,
  SurveyChat,
  Question,
  SurveyRevision,
  Answer,
  AnswerTally,
  AccessRole,
  JobTitle,
  Property,
  Bot,
  OutboxMail,
  Invitation,
  ApiKey,
  Event,
  EventSequence,
  Webhook,
  Delivery,
  AuditEntryModel,
  Job,
  JobFileChunk,
  View,
  Company,
  Credential,
  Session,
  RateCounter,
  IdempotencyRecord,
  ListCount,
  // Service-wide markers: the bootstrap and the back-fills.
  Meta,
];
