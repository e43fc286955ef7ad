/**
 * Survey revisions (API contract §7): the survey as it was after each successful create and
 * update, with who and when, listed newest first.
 */
import type { Document } from "mongodb";
import { Survey, SurveyRevision } from "@/lib/models";
import type { SurveyDoc } from "@/lib/models/survey";
import { isObjectId } from "@/lib/schemas/common";
import type { ListRevisionsQuery, SurveyRecord, SurveyRevisionList, SurveyRevisionRecord } from "@/lib/schemas/surveys";
import type { Principal } from "./auth";
import { notFound } from "./errors";
import { newId, oid, type ObjectId } from "./ids";
import { toSurveyRecord } from "./survey-records";

/**
 * Stores the revision of a survey document just written. Called with the document the write
 * returned, so every `__v` gets the state its own update produced, also under concurrency.
 */
export async function recordRevision(doc: Document, userId: string | null, at: Date): Promise<void> {
  const snapshot = { ...doc };
  delete snapshot.nameLower;
  delete snapshot.searchPrefixes;
  await SurveyRevision.collection.insertOne({
    _id: newId(),
    survey: doc._id as ObjectId,
    company: doc.company as ObjectId,
    __v: doc.__v as number,
    snapshot,
    modifiedBy: userId && isObjectId(userId) ? oid(userId) : null,
    createdAt: at,
  });
}

export async function listRevisions(auth: Principal, id: string, query: ListRevisionsQuery): Promise<SurveyRevisionList> {
  const companyId = oid(auth.companyId);
  const surveyId = oid(id);
  if (!(await Survey.exists({ _id: surveyId, company: companyId }))) throw notFound("survey");
  const filter = { survey: surveyId, company: companyId };
  const [docs, counter] = await Promise.all([
    SurveyRevision.collection
      .find(filter, { sort: { __v: -1 }, skip: (query.page - 1) * query.limit, limit: query.limit })
      .toArray(),
    query.count ? SurveyRevision.collection.countDocuments(filter) : undefined,
  ]);
  return {
    data: {
      revisions: docs.map(toRevisionRecord),
      page: query.page,
      limit: query.limit,
      ...(counter === undefined ? {} : { counter }),
    },
  };
}

function toRevisionRecord(doc: Document): SurveyRevisionRecord {
  return {
    _id: (doc._id as ObjectId).toHexString(),
    surveyId: (doc.survey as ObjectId).toHexString(),
    __v: doc.__v as number,
    snapshot: toSurveyRecord(doc.snapshot as SurveyDoc) as SurveyRecord,
    modifiedBy: doc.modifiedBy ? (doc.modifiedBy as ObjectId).toHexString() : null,
    createdAt: (doc.createdAt as Date).toISOString(),
  };
}
