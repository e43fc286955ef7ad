/**
 * Every Mongoose model of the service, whose indexes ready() builds at start. It imports
 * repositories only, so start-up does not load the contracts (docs/architecture.md#layout); a new
 * kind of record adds its models here and its contract to lib/resources/index.ts.
 */
import { ListCount } from "@/lib/kernel/counts";
import { Meta } from "@/lib/kernel/models";
import { Answer, AnswerTally } from "@/lib/resources/answers/repository";
import { ApiKey } from "@/lib/resources/api-keys/repository";
import { AuditEntryModel } from "@/lib/resources/audit/repository";
import { Company } from "@/lib/resources/companies/repository";
import { Credential, Session } from "@/lib/resources/credentials/repository";
import { Event, EventSequence } from "@/lib/resources/events/repository";
import { Job, JobFileChunk } from "@/lib/resources/jobs/repository";
import { Invitation, OutboxMail } from "@/lib/resources/mail/repository";
import { AccessRole, Bot, JobTitle, Property } from "@/lib/resources/reference/repository";
import { IdempotencyRecord, RateCounter } from "@/lib/resources/requests/repository";
import { Question, SurveyChat, SurveyRevision } from "@/lib/resources/surveys/parts";
import { Survey } from "@/lib/resources/surveys/repository";
import { User } from "@/lib/resources/users/repository";
import { View } from "@/lib/resources/views/repository";
import { Delivery, Webhook, WebhookReceipt, WebhookReceiver } from "@/lib/resources/webhooks/repository";

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
  WebhookReceiver,
  WebhookReceipt,
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
