/**
 * Survey revisions (docs/api.md#revisions): the survey as it was after each successful create and
 * update, with who and when, listed newest first. The revisions are written by the repository
 * (`sealRevisions`) with each write of a survey.
 */
import { isObjectId } from "@/lib/base/schemas/common";
import { listScope, pageFields, pageOf, pageRead, withCondition, type ListOrder } from "@/lib/kernel/cursor";
import { notFound } from "@/lib/kernel/errors";
import { oid, type ObjectId } from "@/lib/kernel/ids";
import type { Principal } from "@/lib/kernel/principal";
import type {
  ListRevisionsQuery,
  QuestionType,
  SnapshotChat,
  SurveyRecord,
  SurveyRevisionList,
  SurveyRevisionRecord,
} from "./contract";
import type { RevisionDoc, StoredChat } from "./repository";
import { countRevisions, findCompanySurvey, findRevisions, sealRevisions, toSurveyRecord } from "./repository";

/** Who a write is by, as stored in `revisionBy` and `modifiedBy`. */
export const revisionAuthor = (userId: string | null): ObjectId | null =>
  userId && isObjectId(userId) ? oid(userId) : null;

export async function listRevisions(
  auth: Principal,
  id: string,
  query: ListRevisionsQuery,
): Promise<SurveyRevisionList> {
  const companyId = oid(auth.companyId);
  const surveyId = oid(id);
  const survey = await findCompanySurvey(companyId, surveyId);
  if (!survey) throw notFound("survey");
  // Normally a no-op; after a write that stopped half-way it adds the revision that write missed.
  await sealRevisions(survey);
  const filter = { survey: surveyId, company: companyId };
  const scope = listScope(auth.companyId, `/v2/surveys/${surveyId.toHexString()}/revisions`, query);
  const read = await pageRead(query, REVISION_ORDER, scope);
  const [docs, counter] = await Promise.all([
    findRevisions(withCondition(filter, read.after), { sort: read.sort, skip: read.skip, limit: read.limit }),
    query.count ? countRevisions(filter) : undefined,
  ]);
  const page = await pageOf(docs, query, REVISION_ORDER, scope, (doc) => [doc.__v]);
  return {
    data: {
      revisions: page.items.map(toRevisionRecord),
      ...pageFields(query, page, counter),
    },
  };
}

/** Newest first: `__v` is unique within a survey. */
const REVISION_ORDER: ListOrder = { fields: [{ name: "__v", type: "number" }], direction: -1 };

function toRevisionRecord(doc: RevisionDoc): SurveyRevisionRecord {
  return {
    _id: doc._id.toHexString(),
    surveyId: doc.survey.toHexString(),
    __v: doc.__v,
    snapshot: doc.snapshot.chat
      ? { ...(toSurveyRecord(doc.snapshot) as SurveyRecord), chat: doc.snapshot.chat.map(toSnapshotChat) }
      : (toSurveyRecord(doc.snapshot) as SurveyRecord),
    modifiedBy: doc.modifiedBy ? doc.modifiedBy.toHexString() : null,
    createdAt: doc.createdAt.toISOString(),
  };
}

/** A chat of a revision's content as the API shows it (ids as hex strings). */
const toSnapshotChat = (chat: StoredChat): SnapshotChat => ({
  _id: chat._id.toHexString(),
  name: chat.name,
  order: chat.order,
  questions: chat.questions.map((question) => ({
    ...question,
    _id: question._id.toHexString(),
    type: question.type as QuestionType,
  })),
});
