/**
 * Test support of the surveys API: chats, questions and answers written straight to the database
 * (no `/v2` route creates them), and a workaround for a fault of the embedded database.
 */
import { beforeAll } from "vitest";
import { connect, disconnect } from "@/lib/db";
import { Answer, Question, SurveyChat } from "@/lib/models";
import { newId, oid, type ObjectId } from "@/lib/services/ids";
import type { QuestionType } from "@/lib/schemas/surveys";
import type { TestDatabase } from "./database";

/**
 * WORKAROUND, to drop once the embedded database is fixed: its `hello` answers
 * `topologyVersion.processId` as a string where MongoDB sends an ObjectId, so from the driver's
 * second heartbeat on (10 s after connecting) every heartbeat throws in the driver
 * (`currentTv.processId.equals is not a function`), the server is marked unknown and the pool is
 * cleared, failing the operations in flight (with the streaming monitor, about once a second).
 * Reconnecting with a polling monitor an hour apart keeps a test file clear of it. Call after
 * `useTestDatabase()`.
 */
export function avoidHeartbeatFailures(db: TestDatabase): void {
  beforeAll(async () => {
    await disconnect();
    const separator = db.uri.includes("?") ? "&" : "?";
    process.env.MONGODB_URI = `${db.uri}${separator}serverMonitoringMode=poll&heartbeatFrequencyMS=3600000`;
    await connect();
  });
}

export interface ChatSpec {
  name: string;
  order: number;
  questions: { text: string; type?: QuestionType; options?: string[]; order: number; answers?: number }[];
}

export interface SeededParts {
  chats: ObjectId[];
  /** Per chat, its questions' ids in the order given. */
  questions: ObjectId[][];
  /** The uuids of the answers, per chat and question. */
  answers: ObjectId[][][];
}

/** Writes chats, questions and answers (by `userId`) of one survey. */
export async function addSurveyParts(companyId: string, surveyId: string, userId: string, chats: ChatSpec[]): Promise<SeededParts> {
  const company = oid(companyId);
  const survey = oid(surveyId);
  const now = new Date();
  const parts: SeededParts = { chats: [], questions: [], answers: [] };
  const chatDocs = [];
  const questionDocs = [];
  const answerDocs = [];
  for (const chat of chats) {
    const chatId = newId();
    parts.chats.push(chatId);
    chatDocs.push({ _id: chatId, survey, company, name: chat.name, order: chat.order, createdAt: now, modifiedAt: now });
    const questionIds: ObjectId[] = [];
    const answerIds: ObjectId[][] = [];
    for (const question of chat.questions) {
      const questionId = newId();
      questionIds.push(questionId);
      questionDocs.push({
        _id: questionId,
        chat: chatId,
        survey,
        company,
        text: question.text,
        type: question.type ?? "text",
        options: question.options ?? [],
        order: question.order,
        createdAt: now,
        modifiedAt: now,
      });
      const uuids = Array.from({ length: question.answers ?? 0 }, () => newId());
      answerIds.push(uuids);
      for (const uuid of uuids) {
        answerDocs.push({ _id: newId(), uuid, company, survey, chat: chatId, question: questionId, user: oid(userId), value: "yes", createdAt: now, modifiedAt: now });
      }
    }
    parts.questions.push(questionIds);
    parts.answers.push(answerIds);
  }
  if (chatDocs.length) await SurveyChat.collection.insertMany(chatDocs);
  if (questionDocs.length) await Question.collection.insertMany(questionDocs);
  if (answerDocs.length) await Answer.collection.insertMany(answerDocs);
  return parts;
}
