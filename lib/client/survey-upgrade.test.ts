import type { SurveyRecord } from "@/lib/resources/surveys/contract";
import { surveyRecord } from "@/lib/tools/testing/survey-record";
import { describe, expect, it } from "vitest";
import { previewUpgrade } from "./survey-upgrade";

const role = (n: number) => n.toString(16).padStart(24, "0");

const survey = (patch: Partial<SurveyRecord>) => surveyRecord({ version: 1, ...patch });

describe("previewUpgrade", () => {
  it("derives version 2 fields by the server's rules, keeping a dormant view flag and view-only entry", () => {
    const preview = previewUpgrade(
      survey({
        permissions: [role(1), role(2)],
        group: "Sales",
        groupPermissions: [role(3)],
        permissionsV2: [
          { accessRole: role(2), canAnswer: true, canViewAnswers: true },
          { accessRole: role(4), canAnswer: false, canViewAnswers: true },
        ],
      }),
    );
    expect(preview).toEqual({
      permissionsV2: [
        { accessRole: role(1), canAnswer: true, canViewAnswers: false },
        { accessRole: role(2), canAnswer: true, canViewAnswers: true },
        { accessRole: role(4), canAnswer: false, canViewAnswers: true },
      ],
      groupPermissionsV2: [{ group: "Sales", accessRoles: [role(3)] }],
      onlySubSurvey: false,
      losses: [],
    });
  });

  it("names what cannot be carried: group roles without a group", () => {
    const preview = previewUpgrade(survey({ groupPermissions: [role(3)] }));
    expect(preview.groupPermissionsV2).toEqual([]);
    expect(preview.losses).toHaveLength(1);
    expect(preview.losses[0]).toMatch(/groupPermissions without a group/);
  });
});
