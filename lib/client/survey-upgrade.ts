/**
 * The preview of "upgrade to version 2": what the server's migration will write, computed by the
 * same rules (lib/base/shared/survey-permissions.ts) from the survey as shown. The server stays the
 * authority: the page shows its own warnings after the upgrade.
 */
import { migratePermissions } from "@/lib/base/shared/survey-permissions";
import type { SurveyRecord } from "@/lib/resources/surveys/contract";

export interface UpgradePreview {
  permissionsV2: SurveyRecord["permissionsV2"];
  groupPermissionsV2: SurveyRecord["groupPermissionsV2"];
  onlySubSurvey: boolean;
  /** What version 2 cannot carry over. */
  losses: string[];
}

export function previewUpgrade(survey: SurveyRecord): UpgradePreview {
  const losses: string[] = [];
  const derived = migratePermissions(survey, 1, 2, new Set(), {
    info: () => {},
    warning: (_code, message) => losses.push(message),
  });
  return {
    permissionsV2: derived.permissionsV2 ?? survey.permissionsV2,
    groupPermissionsV2: derived.groupPermissionsV2 ?? survey.groupPermissionsV2,
    onlySubSurvey: survey.onlySubSurvey,
    losses,
  };
}
