/**
 * Who may answer a survey and who may read its answers (docs/api.md#answers), by the permission
 * model the survey stores: version 1 `permissions` (access role ids), version 2 `permissionsV2`
 * (`canAnswer`, `canViewAnswers` per access role). A survey of another company is `404`, before
 * any rule is looked at.
 */
import { notFound, ServiceError } from "@/lib/kernel/errors";
import { oid, type ObjectId } from "@/lib/kernel/ids";
import type { Principal } from "@/lib/kernel/principal";
import { requireScope } from "@/lib/kernel/scopes";
import { isAdmin } from "@/lib/resources/auth/service";
import { finishContentWrite } from "@/lib/resources/surveys/content-sync";
import { findCompanySurvey, type LeanSurvey } from "@/lib/resources/surveys/repository";

export type AccessSurvey = Pick<
  LeanSurvey,
  "_id" | "company" | "version" | "isActive" | "permissions" | "permissionsV2"
>;

/** The caller's company's survey `id`, with the fields the rules read; `404` otherwise. */
export async function surveyOf(auth: Principal, id: string): Promise<AccessSurvey> {
  const surveyId = oid(id);
  const companyId = oid(auth.companyId);
  const [survey] = await Promise.all([
    findCompanySurvey(companyId, surveyId, { company: 1, version: 1, isActive: 1, permissions: 1, permissionsV2: 1 }),
    // Answers and results read the chats and questions: a content write stopped half-way is finished first.
    finishContentWrite(surveyId, companyId),
  ]);
  if (!survey) throw notFound("survey");
  return survey;
}

const holds = (auth: Principal, role: ObjectId) => auth.accessRoles.some((held) => held.equals(role));

/**
 * Version 2: a `permissionsV2` entry of one of the caller's roles with `canAnswer`; version 1: a role
 * in `permissions`. An API key holds no role: with `answers:write` it answers for its company a
 * survey some role may answer, never one closed to every role (docs/security.md#scopes).
 */
export function mayAnswer(survey: AccessSurvey, auth: Principal): boolean {
  const reaches = (role: ObjectId) => Boolean(auth.apiKey) || holds(auth, role);
  if (survey.version === 2)
    return (survey.permissionsV2 ?? []).some((entry) => (entry.canAnswer ?? true) && reaches(entry.accessRole));
  return (survey.permissions ?? []).some(reaches);
}

/**
 * Reading answers and results: an admin (`Admin: true`, honoured only for a holder of an admin
 * role), an API key with `answers:read` sending `Admin: true`, or, on a version 2 survey, a holder
 * of a role with `canViewAnswers`; else `403 forbidden`.
 */
export async function checkMayRead(survey: AccessSurvey, auth: Principal, adminHeader: string | null): Promise<void> {
  requireScope(auth, "answers:read", "reading a survey's answers");
  if (auth.apiKey) {
    // A key holds no role, so no canViewAnswers reaches it: it reads as an admin does, with Admin: true.
    if (adminHeader === "true") return;
    throw new ServiceError(
      "forbidden",
      "An API key holds no access role: it reads a survey's answers with Admin: true, as an admin does.",
    );
  }
  if (adminHeader === "true") {
    if (await isAdmin(auth)) return;
    throw new ServiceError("forbidden", "Admin: true is honoured only for users holding an admin access role.");
  }
  const viewer =
    survey.version === 2 &&
    (survey.permissionsV2 ?? []).some((entry) => entry.canViewAnswers === true && holds(auth, entry.accessRole));
  if (!viewer)
    throw new ServiceError(
      "forbidden",
      "Your access roles may not read this survey's answers; an admin may, with Admin: true.",
    );
}
