/**
 * What a restore of a survey revision sends (docs/api.md#survey-content): the revision's fields by
 * a PATCH and its content by a content PUT, each only when it differs from the survey now, and what
 * the history compares between two revisions. Pure functions, shared by the history page and its
 * tests against the real handlers.
 */
import type {
  SurveyRecord,
  SurveyRevisionRecord,
  SurveySnapshot,
  UpdateSurveyBody,
} from "@/lib/resources/surveys/contract";
import type { z } from "zod";
import { contentChanges, contentOf, type ContentBody, type ContentChange } from "./content-draft";

type UpdateSurveyInput = z.input<typeof UpdateSurveyBody>;

/** What a restore writes back: every field a client may write, and the content, so the old state returns whole. */
const RESTORED_FIELDS = [
  "code",
  "name",
  "version",
  "isActive",
  "isSystemModel",
  "permissions",
  "group",
  "groupPermissions",
  "permissionsV2",
  "groupPermissionsV2",
  "onlySubSurvey",
  "propertiesChannel",
  "propertiesLimit",
  "responders",
] as const satisfies readonly (keyof SurveySnapshot)[];

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The fields of two revisions that differ, of those a restore writes back. */
export const changedRestoredFields = (a: SurveySnapshot, b: SurveySnapshot) =>
  RESTORED_FIELDS.filter((field) => !same(a[field], b[field]));

/**
 * The content a revision held. A snapshot without `chat` was taken before the survey's first
 * content PUT (docs/api.md#survey-content), when it had no chats: its content is none.
 */
const revisionContent = (snapshot: SurveySnapshot): ContentBody => contentOf(snapshot.chat ?? []);

/** What tells two revisions apart in the history: content changes, a missing `chat` read as none. */
export const revisionContentChanges = (a: SurveySnapshot, b: SurveySnapshot): ContentChange[] =>
  contentChanges(a.chat ?? [], b.chat ?? []);

export interface RestorePlan {
  /** The revision's fields, when any differs from the survey's (or when the content does not either, so the restore is still a revision). */
  patch?: UpdateSurveyInput;
  /** The revision's content, when it differs from the survey's. */
  content?: ContentBody;
}

/**
 * The requests that make `current` (read with `populate=true`) what `revision` was: the PATCH goes
 * first, so a change of `version` migrates before the content lands.
 */
export function restorePlan(revision: SurveyRevisionRecord, current: SurveyRecord): RestorePlan {
  const fields = Object.fromEntries(
    RESTORED_FIELDS.map((field) => [field, revision.snapshot[field]]),
  ) as UpdateSurveyInput;
  const content = revisionContent(revision.snapshot);
  const contentDiffers = !same(content, contentOf(current.chat ?? []));
  const fieldsDiffer = RESTORED_FIELDS.some((field) => !same(revision.snapshot[field], current[field]));
  return {
    ...(fieldsDiffer || !contentDiffers ? { patch: fields } : {}),
    ...(contentDiffers ? { content } : {}),
  };
}
