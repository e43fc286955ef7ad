/**
 * Test support of the surveys API: chats, questions and answers written straight to the database,
 * and a content body with every question type.
 */
import { newId, oid, type ObjectId } from "@/lib/kernel/ids";
import { Answer } from "@/lib/resources/answers/repository";
import type { QuestionType } from "@/lib/resources/surveys/contract";
import { Question, SurveyChat } from "@/lib/resources/surveys/parts";

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
export async function addSurveyParts(
  companyId: string,
  surveyId: string,
  userId: string,
  chats: ChatSpec[],
): Promise<SeededParts> {
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
    chatDocs.push({
      _id: chatId,
      survey,
      company,
      name: chat.name,
      order: chat.order,
      createdAt: now,
      modifiedAt: now,
    });
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
        answerDocs.push({
          _id: newId(),
          uuid,
          company,
          survey,
          chat: chatId,
          question: questionId,
          user: oid(userId),
          value: "yes",
          createdAt: now,
          modifiedAt: now,
        });
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

/** A `PUT /v2/surveys/{id}/content` body with one question of each type, in two chats. */
export const EVERY_TYPE_CONTENT = {
  chat: [
    {
      name: "First",
      questions: [
        { text: "Tell us", type: "text" },
        { text: "How many?", type: "number" },
        { text: "When?", type: "date" },
        { text: "Happy?", type: "yes_no" },
      ],
    },
    {
      name: "Second",
      questions: [
        { text: "Pick one", type: "single_choice", options: ["Red", "Green", "Blue"] },
        { text: "Pick some", type: "multiple_choice", options: ["Tea", "Coffee", "Water"] },
        { text: "Rate", type: "rating" },
      ],
    },
  ],
};
