/**
 * The question editor's working copy of a survey's content: chats and questions as the page edits
 * them (each with a key of its own, so new ones can be moved before they have an id), the moves
 * the mouse and the keyboard make, the sentence announced after each move, and the one body of
 * `PUT /v2/surveys/{id}/content` it becomes on save. Pure functions: no React, no requests.
 */
import {
  isChoiceType,
  MAX_OPTIONS,
  MIN_OPTIONS,
  PutContentBody,
  type QuestionType,
  type SurveyChatRecord,
} from "@/lib/resources/surveys/contract";
import type { z } from "zod";
import { serverFieldErrors, zodFieldErrors, type FieldErrors, type FieldTexts } from "./form-errors";

export interface DraftQuestion {
  key: string;
  _id?: string;
  text: string;
  type: QuestionType;
  /** One option a line, as the options box shows them; empty for the types without options. */
  options: string;
  answerCount: number;
}

export interface DraftChat {
  key: string;
  _id?: string;
  name: string;
  questions: DraftQuestion[];
}

export type Draft = DraftChat[];

export const QUESTION_TYPE_LABELS: Record<QuestionType, string> = {
  text: "Text",
  number: "Number",
  date: "Date",
  yes_no: "Yes / no",
  single_choice: "Single choice",
  multiple_choice: "Multiple choice",
  rating: "Rating 1–5",
};

let counter = 0;
/** A key for a chat or question the page made; stored ones use their id. */
export const newKey = (prefix: "chat" | "question") => `new-${prefix}-${++counter}`;

/** A chat as the survey shows it, or as a revision kept it (without answer counts). */
type ChatLike = Pick<SurveyChatRecord, "_id" | "name"> & {
  questions: (Omit<SurveyChatRecord["questions"][number], "answerCount"> & { answerCount?: number })[];
};

export function toDraft(chats: readonly ChatLike[] | undefined): Draft {
  return (chats ?? []).map((chat) => ({
    key: chat._id,
    _id: chat._id,
    name: chat.name,
    questions: chat.questions.map((question) => ({
      key: question._id,
      _id: question._id,
      text: question.text,
      type: question.type,
      options: question.options.join("\n"),
      answerCount: question.answerCount ?? 0,
    })),
  }));
}

/** The options box's lines, trimmed, blank lines dropped. */
const optionLines = (options: string) =>
  options
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);

export type ContentBody = z.input<typeof PutContentBody>;

/** The content PUT that brings these chats back as they are. */
export const contentOf = (chats: readonly ChatLike[]): ContentBody => toBody(toDraft(chats));

/** The body of `PUT /v2/surveys/{id}/content`: the content in the order shown. */
export function toBody(draft: Draft): ContentBody {
  return {
    chat: draft.map((chat) => ({
      ...(chat._id ? { _id: chat._id } : {}),
      name: chat.name.trim(),
      questions: chat.questions.map((question) => ({
        ...(question._id ? { _id: question._id } : {}),
        text: question.text.trim(),
        type: question.type,
        ...(isChoiceType(question.type) ? { options: optionLines(question.options) } : {}),
      })),
    })),
  };
}

/** Where a question is: its chat's index and its own index in that chat. */
export interface Place {
  chat: number;
  question: number;
}

export function findQuestion(draft: Draft, key: string): Place | undefined {
  for (const [chat, c] of draft.entries()) {
    const question = c.questions.findIndex((q) => q.key === key);
    if (question >= 0) return { chat, question };
  }
  return undefined;
}

function move<T>(items: readonly T[], from: number, to: number): T[] {
  const next = [...items];
  const [item] = next.splice(from, 1);
  next.splice(to, 0, item!);
  return next;
}

/** The chat at `from` moved to `to` (indexes in the draft). */
export function moveChat(draft: Draft, from: number, to: number): Draft {
  if (to < 0 || to >= draft.length || from === to) return draft;
  return move(draft, from, to);
}

/** A question moved to a place, in its own chat or another. */
export function moveQuestionTo(draft: Draft, key: string, to: Place): Draft {
  const from = findQuestion(draft, key);
  if (!from) return draft;
  const question = draft[from.chat]!.questions[from.question]!;
  const without = draft.map((chat, index) =>
    index === from.chat ? { ...chat, questions: chat.questions.filter((q) => q.key !== key) } : chat,
  );
  return without.map((chat, index) => {
    if (index !== to.chat) return chat;
    const questions = [...chat.questions];
    questions.splice(Math.min(Math.max(to.question, 0), questions.length), 0, question);
    return { ...chat, questions };
  });
}

/**
 * One step up or down, as the keyboard's move buttons make it: within its chat, and past the
 * chat's edge to the end of the previous chat or the start of the next one.
 */
export function stepQuestion(draft: Draft, key: string, step: -1 | 1): Draft {
  const at = findQuestion(draft, key);
  if (!at) return draft;
  const count = draft[at.chat]!.questions.length;
  const target = at.question + step;
  if (target >= 0 && target < count) return moveQuestionTo(draft, key, { chat: at.chat, question: target });
  const chat = at.chat + step;
  if (chat < 0 || chat >= draft.length) return draft;
  return moveQuestionTo(draft, key, { chat, question: step < 0 ? draft[chat]!.questions.length : 0 });
}

const chatLabel = (draft: Draft, index: number) =>
  `chat ${index + 1}, ${draft[index]!.name.trim() || "without a name"}`;
const questionLabel = (question: DraftQuestion) => `“${question.text.trim() || "question without text"}”`;

/** The sentence read out after a question moved: where it is now. */
export function describeQuestionPlace(draft: Draft, key: string): string {
  const at = findQuestion(draft, key);
  if (!at) return "";
  const chat = draft[at.chat]!;
  return `${questionLabel(chat.questions[at.question]!)} is now question ${at.question + 1} of ${chat.questions.length} in ${chatLabel(draft, at.chat)}.`;
}

/** The sentence read out after a chat moved. */
export function describeChatPlace(draft: Draft, key: string): string {
  const index = draft.findIndex((chat) => chat.key === key);
  if (index < 0) return "";
  return `Chat “${draft[index]!.name.trim() || "without a name"}” is now chat ${index + 1} of ${draft.length}.`;
}

/** The error paths of the body (`chat.0.questions.1.text`) the editor shows beside a field, in the page's order. */
function draftFields(draft: Draft): string[] {
  return draft.flatMap((chat, c) => [
    `chat.${c}.name`,
    ...chat.questions.flatMap((_, q) => [
      `chat.${c}.questions.${q}.text`,
      `chat.${c}.questions.${q}.type`,
      `chat.${c}.questions.${q}.options`,
    ]),
    `chat.${c}.questions`,
  ]);
}

/** The id of the input that shows the error of a path. */
export const fieldId = (path: string) => `content-${path.replaceAll(".", "-")}`;

/** Every field of the draft, in the page's order, and the list of chats itself last. */
export const contentFields = (draft: Draft) => [...draftFields(draft), "chat"];

function texts(fields: readonly string[]): FieldTexts {
  return Object.fromEntries(
    fields.map((field) => [
      field,
      field.endsWith(".name") ? { noun: "the chat's name" } : field.endsWith(".text") ? { noun: "the question" } : {},
    ]),
  );
}

/** The options box holds them all, so its message says the whole rule rather than the schema's words. */
function plainOptions(errors: FieldErrors): FieldErrors {
  return Object.fromEntries(
    Object.entries(errors).map(([field, message]) => [
      field,
      !field.endsWith(".options")
        ? message
        : /twice/.test(message)
          ? "Each option may appear only once."
          : `Write ${MIN_OPTIONS} to ${MAX_OPTIONS} different options, one a line.`,
    ]),
  );
}

/** The body checked with the API's own schema before it is sent, each problem in plain words on its field. */
export function contentErrors(draft: Draft): FieldErrors {
  const body = toBody(draft);
  const checked = PutContentBody.safeParse(body);
  if (checked.success) return {};
  const fields = contentFields(draft);
  return plainOptions(zodFieldErrors(checked.error, fields, texts(fields), body).fields);
}

/** The server's field details of a refused save, on the fields they name. */
export function contentServerErrors(error: unknown, draft: Draft): FieldErrors {
  const fields = contentFields(draft);
  return plainOptions(serverFieldErrors(error, fields, texts(fields)).fields);
}

/** One difference between two versions of a survey's content, as the history page lists it. */
export interface ContentChange {
  what: "chat" | "question";
  kind: "added" | "removed" | "renamed" | "reworded" | "moved";
  before?: string;
  after?: string;
}

interface Placed {
  id: string;
  chat: string;
  chatName: string;
  text: string;
  /** Its text, type and options: what a rewording changes. */
  wording: string;
}

const wordingOf = (question: ChatLike["questions"][number]) =>
  `“${question.text}” (${QUESTION_TYPE_LABELS[question.type]}${question.options.length ? `: ${question.options.join(" · ")}` : ""})`;

function placed(chats: readonly ChatLike[]): Placed[] {
  return chats.flatMap((chat) =>
    chat.questions.map((question) => ({
      id: question._id,
      chat: chat._id,
      chatName: chat.name,
      text: question.text,
      wording: wordingOf(question),
    })),
  );
}

/** Where each id stands among the ids both sides hold: a move changes it, an insertion elsewhere does not. */
function ranks(ids: readonly string[], common: ReadonlySet<string>): Map<string, number> {
  return new Map(ids.filter((id) => common.has(id)).map((id, index) => [id, index]));
}

/**
 * What changed from `left` to `right`: chats and questions added, removed, renamed or reworded,
 * and moved (to another chat, or past another one that both versions hold).
 */
export function contentChanges(left: readonly ChatLike[] = [], right: readonly ChatLike[] = []): ContentChange[] {
  const changes: ContentChange[] = [];
  const leftChats = new Map(left.map((chat) => [chat._id, chat]));
  const rightChats = new Map(right.map((chat) => [chat._id, chat]));
  const commonChats = new Set([...leftChats.keys()].filter((id) => rightChats.has(id)));
  const leftChatRank = ranks([...leftChats.keys()], commonChats);
  const rightChatRank = ranks([...rightChats.keys()], commonChats);
  for (const chat of left)
    if (!rightChats.has(chat._id)) changes.push({ what: "chat", kind: "removed", before: chat.name });
  for (const chat of right) {
    const before = leftChats.get(chat._id);
    if (!before) changes.push({ what: "chat", kind: "added", after: chat.name });
    else {
      if (before.name !== chat.name)
        changes.push({ what: "chat", kind: "renamed", before: before.name, after: chat.name });
      if (leftChatRank.get(chat._id) !== rightChatRank.get(chat._id)) {
        changes.push({
          what: "chat",
          kind: "moved",
          before: `${chat.name}: chat ${left.indexOf(before) + 1}`,
          after: `${chat.name}: chat ${right.indexOf(chat) + 1}`,
        });
      }
    }
  }

  const leftQuestions = placed(left);
  const rightQuestions = placed(right);
  const leftById = new Map(leftQuestions.map((question) => [question.id, question]));
  const rightIds = new Set(rightQuestions.map((question) => question.id));
  const common = new Set(leftQuestions.map((question) => question.id).filter((id) => rightIds.has(id)));
  const rankIn = (questions: Placed[]) =>
    new Map(
      questions
        .filter((q) => common.has(q.id))
        .map((q) => [
          q.id,
          ranks(
            questions.filter((other) => other.chat === q.chat).map((other) => other.id),
            common,
          ).get(q.id),
        ]),
    );
  const leftRank = rankIn(leftQuestions);
  const rightRank = rankIn(rightQuestions);
  for (const question of leftQuestions)
    if (!rightIds.has(question.id)) changes.push({ what: "question", kind: "removed", before: question.wording });
  for (const question of rightQuestions) {
    const before = leftById.get(question.id);
    if (!before) {
      changes.push({ what: "question", kind: "added", after: question.wording });
      continue;
    }
    if (before.wording !== question.wording)
      changes.push({ what: "question", kind: "reworded", before: before.wording, after: question.wording });
    if (before.chat !== question.chat || leftRank.get(question.id) !== rightRank.get(question.id)) {
      const where = (side: readonly ChatLike[], q: Placed) => {
        const chat = side.findIndex((c) => c._id === q.chat);
        return `“${q.text}”: question ${side[chat]!.questions.findIndex((other) => other._id === q.id) + 1} of chat ${chat + 1}, ${q.chatName}`;
      };
      changes.push({ what: "question", kind: "moved", before: where(left, before), after: where(right, question) });
    }
  }
  return changes;
}
