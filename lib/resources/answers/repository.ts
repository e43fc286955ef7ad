/**
 * The answers collection (its model is in lib/resources/surveys/parts.ts): the only code that writes it,
 * and every read of answers beyond the survey's answer counts. One way to the database: the
 * driver, typed by {@link StoredAnswer}; pages with the one-command reads of lib/kernel/models/read.ts,
 * exports with a driver cursor, results with aggregation pipelines that run in the database.
 */
import type { Document, Filter, FindCursor, Sort } from "mongodb";
import { driverCollection } from "@/lib/kernel/models/define";
import { aggregateDocs, findDocs, type ReadOptions } from "@/lib/kernel/models/read";
import { newId, type ObjectId } from "@/lib/kernel/ids";
import { Answer } from "@/lib/resources/surveys/parts";

/** An answer as stored. */
export interface StoredAnswer {
  _id: ObjectId;
  uuid: ObjectId;
  company: ObjectId;
  survey: ObjectId;
  chat: ObjectId;
  question: ObjectId;
  user: ObjectId | null;
  /** A string, number, boolean, Date (a `date` answer) or array of strings. */
  value: unknown;
  response: ObjectId | null;
  /** Its place in its response: the answer at 0 counts the response. */
  position: number;
  createdAt: Date;
  modifiedAt: Date;
  /** On a response's first answer until the response is added to the tallies (./tallies.ts). */
  untallied?: true;
}

/** What an answer is made of; `uuid` and `_id` are new unless given. */
export type NewAnswer = Omit<StoredAnswer, "_id" | "uuid" | "modifiedAt" | "untallied"> & Partial<Pick<StoredAnswer, "_id" | "uuid">>;

/** An answer document as stored, built in this one place for the service, the seed and the benchmark. */
export const newAnswerDoc = (answer: NewAnswer): StoredAnswer => ({
  ...answer,
  _id: answer._id ?? newId(),
  uuid: answer.uuid ?? newId(),
  modifiedAt: answer.createdAt,
});

const answers = () => driverCollection<StoredAnswer>(Answer);

/** Inserts answers in one unordered bulk (the seed and the benchmark). */
export async function insertAnswers(docs: StoredAnswer[]): Promise<void> {
  if (docs.length > 0) await answers().insertMany(docs, { ordered: false });
}

/**
 * Stores one response as one `insertMany`, ordered: the values are all checked before, so the
 * only failure left is the database's own; then whatever part of the response it stored is
 * deleted again before the error goes on, and no reader is left with half a response.
 */
export async function insertResponse(docs: StoredAnswer[]): Promise<void> {
  try {
    await answers().insertMany(docs, { ordered: true });
  } catch (error) {
    const [first] = docs;
    await answers()
      .deleteMany({ survey: first.survey, company: first.company, response: first.response })
      .catch(() => undefined);
    throw error;
  }
}

export const findAnswers = (filter: Filter<Document>, options: ReadOptions): Promise<StoredAnswer[]> => findDocs<StoredAnswer>(Answer, filter, options);

/** A cursor over every answer `filter` matches, read in batches (the CSV export). */
export const answerCursor = (filter: Filter<Document>, sort: Sort, batchSize: number): FindCursor<StoredAnswer> =>
  answers().find(filter, { sort, batchSize }) as unknown as FindCursor<StoredAnswer>;

/** Runs a results pipeline in the database; its output is one document per group, never per answer. */
export const aggregateAnswers = <T extends Document>(pipeline: Document[]): Promise<T[]> => aggregateDocs<T>(Answer, pipeline);

export const countAnswers = (filter: Filter<Document>): Promise<number> => answers().countDocuments(filter);

/** Clears the mark `untallied` of the answers `filter` selects: their responses are in the tallies. */
export async function markTallied(filter: Filter<Document>): Promise<void> {
  await answers().updateMany(filter, { $unset: { untallied: "" } });
}
