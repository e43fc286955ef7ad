/**
 * The preview of "upgrade to version 2": what the server's migration (version 1 → 2 in
 * lib/services/survey-permissions.ts, whose rules it follows) will write, computed from the
 * survey as shown. The server stays the authority: the page compares its answer with this.
 */
import type { SurveyRecord } from "@/lib/schemas/surveys";

export interface UpgradePreview {
  permissionsV2: SurveyRecord["permissionsV2"];
  groupPermissionsV2: SurveyRecord["groupPermissionsV2"];
  onlySubSurvey: boolean;
  /** What version 2 cannot carry over. */
  losses: string[];
}

export function previewUpgrade(survey: SurveyRecord): UpgradePreview {
  const dormant = new Map(survey.permissionsV2.map((entry) => [entry.accessRole, entry]));
  const granted = new Set(survey.permissions);
  const losses: string[] = [];
  if (survey.group === null && survey.groupPermissions.length > 0) {
    losses.push("The group's access roles have no group name, so version 2 cannot carry them into a group.");
  }
  return {
    permissionsV2: [
      ...survey.permissions.map((accessRole) => ({ accessRole, canAnswer: true, canViewAnswers: dormant.get(accessRole)?.canViewAnswers ?? false })),
      ...survey.permissionsV2.filter((entry) => !entry.canAnswer && !granted.has(entry.accessRole)),
    ],
    groupPermissionsV2: survey.group === null ? [] : [{ group: survey.group, accessRoles: survey.groupPermissions }],
    onlySubSurvey: survey.onlySubSurvey,
    losses,
  };
}
