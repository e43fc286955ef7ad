/** A complete, valid survey record (as the API answers it), for tests that need one without a database. */
import type { SurveyRecord } from "@/lib/resources/surveys/contract";

export function surveyRecord(patch: Partial<SurveyRecord> = {}): SurveyRecord {
  const id = "6650f1c2a9d3e4b5c6d7e8f9";
  const date = "2026-01-31T08:15:00.000Z";
  return {
    _id: id,
    code: "onboarding",
    name: "Onboarding",
    version: 2,
    company: id,
    isActive: true,
    isSystemModel: false,
    permissions: [],
    group: null,
    groupPermissions: [],
    permissionsV2: [],
    groupPermissionsV2: [],
    onlySubSurvey: false,
    propertiesChannel: [],
    propertiesLimit: [],
    responders: [],
    createdAt: date,
    modifiedAt: date,
    __v: 0,
    ...patch,
  };
}
