/**
 * A survey's content (docs/api.md#survey-content): `PUT /v2/surveys/{id}/content` replaces its
 * chats and questions in the order given. It is a change of the survey like a PATCH: the survey
 * document takes the new content, `__v` and `modifiedAt` in one atomic write (so the revision of
 * that version holds the content, and a restore is a PUT of a revision's `chat`), then the chats
 * and questions collections follow (./content-sync.ts). Nothing a respondent wrote is deleted:
 * a chat or question left out is marked removed and keeps its answers.
 */
import type { ErrorDetail } from "@/lib/base/schemas/common";
import { inTransaction } from "@/lib/kernel/db/transaction";
import { matchesTag } from "@/lib/kernel/entity-tag";
import { notFound, preconditionFailed, ServiceError } from "@/lib/kernel/errors";
import { newId, oid, type ObjectId } from "@/lib/kernel/ids";
import type { Principal } from "@/lib/kernel/principal";
import { retryWhileRaced } from "@/lib/kernel/retry";
import { completeContentWrite, finishContentWrite } from "./content-sync";
import type { PutContentBody, SurveyRecord } from "./contract";
import {
  allSurveyParts,
  findCompanySurvey,
  forgetSurveyCounters,
  replaceSurveyContent,
  sealRevisions,
  storedSurveyTag,
  type StoredChat,
} from "./repository";
import { revisionAuthor } from "./revisions";
import { getSurvey } from "./service";
import { recordSurveyChange } from "./writes";

export async function putContent(
  auth: Principal,
  id: string,
  body: PutContentBody,
  ifMatch?: string,
): Promise<SurveyRecord> {
  const companyId = oid(auth.companyId);
  const surveyId = oid(id);
  await finishContentWrite(surveyId, companyId);
  const write = { at: new Date(), by: revisionAuthor(auth.userId) };

  // The content, its revision and its event commit together (docs/architecture.md#events).
  await inTransaction(async () => {
    const updated = await retryWhileRaced(async () => {
      const current = await findCompanySurvey(companyId, surveyId, { __v: 1, modifiedAt: 1 });
      if (!current) throw notFound("survey");
      // As on PATCH (docs/api.md#conditional-requests): the write below holds to this `__v`, so a
      // change landing in between makes the next attempt read a new tag and answer 412.
      const tag = storedSurveyTag(current);
      if (ifMatch !== undefined && !matchesTag(ifMatch, tag)) throw preconditionFailed("survey", tag);
      const content = planContent(body, await allSurveyParts(surveyId, companyId));
      // Applies only to the version the plan was checked against: a concurrent change retries.
      return replaceSurveyContent(surveyId, companyId, current.__v, content, write);
    });
    if (!updated) throw new ServiceError("conflict", "The survey is being changed by other requests; try again.");
    await completeContentWrite(updated);
    await sealRevisions(updated);
    await recordSurveyChange(updated);
  });
  await forgetSurveyCounters(companyId);
  return getSurvey(auth, id, { populate: true });
}

type Parts = Awaited<ReturnType<typeof allSurveyParts>>;

/**
 * The content to store: the body's chats and questions with their ids (new ones for those sent
 * without) and places. An `_id` of no chat or question of this survey is `400`; a new type for a
 * question that has answers is `409`. Removed chats and questions may be named: they come back.
 */
function planContent(body: PutContentBody, parts: Parts): StoredChat[] {
  const chats = new Set(parts.chats.map((chat) => chat._id.toHexString()));
  const questions = new Map(parts.questions.map((question) => [question._id.toHexString(), question]));
  const unknown: ErrorDetail[] = [];
  const retyped: ErrorDetail[] = [];
  const idOf = (sent: string | undefined, known: boolean, path: string): ObjectId => {
    if (sent === undefined) return newId();
    if (!known)
      unknown.push({
        path,
        message: `${sent} names no ${path.includes("questions") ? "question" : "chat"} of this survey`,
      });
    return oid(sent);
  };

  const content = body.chat.map((chat, c): StoredChat => ({
    _id: idOf(chat._id, chat._id !== undefined && chats.has(chat._id), `chat.${c}._id`),
    name: chat.name,
    order: c + 1,
    questions: chat.questions.map((question, q) => {
      const stored = question._id === undefined ? undefined : questions.get(question._id);
      const answers = stored ? (parts.answerCounts.get(question._id!) ?? 0) : 0;
      if (stored && answers > 0 && stored.type !== question.type) {
        retyped.push({
          path: `chat.${c}.questions.${q}.type`,
          message: `the question has ${answers} answers: its type stays ${stored.type}`,
        });
      }
      return {
        _id: idOf(question._id, stored !== undefined, `chat.${c}.questions.${q}._id`),
        text: question.text,
        type: question.type,
        options: question.options ?? [],
        order: q + 1,
      };
    }),
  }));
  if (unknown.length > 0)
    throw new ServiceError(
      "invalid_request",
      "The content names chats or questions that are not this survey's.",
      unknown,
    );
  if (retyped.length > 0) throw new ServiceError("conflict", "A question that has answers keeps its type.", retyped);
  return content;
}
