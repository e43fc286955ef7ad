/**
 * Survey revisions (docs/api.md#revisions): the survey as it was after each successful create and
 * update, with who and when, listed newest first.
 */
import type { Document } from "mongodb";
import { SurveyRevision } from "@/lib/models";
import { Survey } from "@/lib/surveys/repository";
import { findDocs, findOneDoc, pageWindow } from "@/lib/models/read";
import type { SurveyDoc } from "@/lib/surveys/repository";
import { isObjectId } from "@/lib/schemas/common";
import type { ListRevisionsQuery, SurveyRecord, SurveyRevisionList, SurveyRevisionRecord } from "@/lib/surveys/contract";
import type { Principal } from "./auth";
import { isDuplicateKeyError, notFound } from "./errors";
import { newId, oid, type ObjectId } from "./ids";
import { toSurveyRecord } from "@/lib/surveys/repository";

/**
 * Fields of a stored survey that are bookkeeping, not the survey: no answer and no snapshot shows
 * them. `previous` is the stored state the last write replaced and `revisionBy` who made the
 * current one, so that the revision of either can still be written after a crash (below).
 */
const INTERNAL_SURVEY_FIELDS = ["nameLower", "searchPrefixes", "previous", "revisionBy"] as const;

/** A projection that leaves the bookkeeping fields out. */
export const WITHOUT_INTERNAL_FIELDS: Readonly<Record<string, 0>> = Object.fromEntries(INTERNAL_SURVEY_FIELDS.map((field) => [field, 0]));

/** Who a write is by, as stored in `revisionBy` and `modifiedBy`. */
export const revisionAuthor = (userId: string | null): ObjectId | null => (userId && isObjectId(userId) ? oid(userId) : null);

/**
 * Writes the revisions of the states a stored survey holds: its own, and `previous`, the state its
 * last write replaced. A create or PATCH calls it with the document its write returned; should the
 * process die (or the database refuse) between that write and this one, the next PATCH of the
 * survey, whose document then holds the missed state as `previous`, writes that revision, and so
 * does listing the revisions. No revision is lost unless two writes of one survey in a row fail so.
 * Upserts keyed by (survey, `__v`): a revision already there is left as it is.
 */
export async function sealRevisions(doc: Document): Promise<void> {
  const states = [doc, doc.previous as Document | undefined].filter((state): state is Document => state !== undefined && state !== null);
  try {
    await SurveyRevision.collection.bulkWrite(
      states.map((state) => ({
        updateOne: {
          filter: { survey: state._id as ObjectId, __v: state.__v as number },
          update: { $setOnInsert: revisionOf(state) },
          upsert: true,
        },
      })),
      { ordered: false },
    );
  } catch (error) {
    // Two requests sealing one revision at once: one inserts it, the other may meet its key.
    if (!isDuplicateKeyError(error)) throw error;
  }
}

function revisionOf(state: Document): Document {
  const snapshot = { ...state };
  for (const field of INTERNAL_SURVEY_FIELDS) delete snapshot[field];
  return {
    _id: newId(),
    company: state.company as ObjectId,
    snapshot,
    modifiedBy: (state.revisionBy as ObjectId | null | undefined) ?? null,
    createdAt: state.modifiedAt as Date,
  };
}

export async function listRevisions(auth: Principal, id: string, query: ListRevisionsQuery): Promise<SurveyRevisionList> {
  const companyId = oid(auth.companyId);
  const surveyId = oid(id);
  const survey = await findOneDoc(Survey, { _id: surveyId, company: companyId });
  if (!survey) throw notFound("survey");
  // Normally a no-op; after a write that stopped half-way it adds the revision that write missed.
  await sealRevisions(survey);
  const filter = { survey: surveyId, company: companyId };
  const [docs, counter] = await Promise.all([
    findDocs(SurveyRevision, filter, { sort: { __v: -1 }, ...pageWindow(query) }),
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
