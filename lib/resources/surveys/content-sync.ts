/**
 * The second half of a content PUT: the chats and questions collections made to follow the
 * content the survey document holds. A PUT runs it at once; a reader runs it when the PUT that
 * should have stopped before (`contentPending` still set), so nobody reads a half-written content.
 */
import type { ObjectId } from "@/lib/kernel/ids";
import { contentSynced, findPendingContent, type StoredChat, syncContent } from "./repository";

/** Writes the collections of `survey`'s content and clears its mark. */
export async function completeContentWrite(survey: {
  _id: ObjectId;
  company: ObjectId;
  __v: number;
  modifiedAt: Date;
  chat?: StoredChat[] | null;
}): Promise<void> {
  await syncContent(survey._id, survey.company, survey.chat ?? [], survey.modifiedAt);
  await contentSynced(survey._id, survey.__v);
}

/** Finishes a content write that stopped half-way, if the survey has one; one indexed read otherwise. */
export async function finishContentWrite(surveyId: ObjectId, companyId: ObjectId): Promise<void> {
  const pending = await findPendingContent(companyId, surveyId, { chat: 1, __v: 1, modifiedAt: 1, company: 1 });
  if (pending) await completeContentWrite(pending);
}
