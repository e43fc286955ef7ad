import * as revisions from "@/app/v2/surveys/[id]/revisions/route";
import * as survey from "@/app/v2/surveys/[id]/route";
import * as surveys from "@/app/v2/surveys/route";
import { oid } from "@/lib/kernel/ids";
import { Answer } from "@/lib/resources/answers/repository";
import { Survey } from "@/lib/resources/surveys/repository";
import { seedSurveys } from "@/lib/tools/seed/surveys";
import { seedDemo } from "@/lib/tools/seed/users";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, createTenant, success, type Tenant } from "@/lib/tools/testing/http";
import { beforeAll, describe, expect, it } from "vitest";

describe("seedSurveys", () => {
  useTestDatabase();
  let t: Tenant;
  let first: Awaited<ReturnType<typeof seedSurveys>>;

  beforeAll(async () => {
    t = await createTenant("Seeded surveys");
    await seedDemo({ companyId: t.companyId, users: 40 });
    first = await seedSurveys({ companyId: t.companyId });
  });

  it("creates surveys of both versions with chats, questions and answers", async () => {
    expect(first.created.surveys).toBe(24);
    expect(first.created.chats).toBeGreaterThan(24);
    expect(first.created.questions).toBeGreaterThan(first.created.chats);
    expect(first.created.answers).toBeGreaterThan(first.created.questions);
    const all = await call(surveys.GET, "/v2/surveys?isActive=all&limit=100&count=true", { token: t.adminToken });
    expect(success(all).data.counter).toBe(24);
    const versions = new Set(success(all).data.surveys.map((s) => s.version));
    expect(versions).toEqual(new Set([1, 2]));
    expect(success(all).data.surveys.some((s) => s.version === 2 && s.permissionsV2!.length > 0)).toBe(true);
    expect(success(all).data.surveys.some((s) => s.version === 1 && s.permissions!.length > 0)).toBe(true);
  });

  it("gives populate and answer real data, and each survey its first revision", async () => {
    const answer = await Answer.findOne({ company: oid(t.companyId) }).lean();
    expect(answer).not.toBeNull();
    const id = answer!.survey.toHexString();
    const byAnswer = await call(surveys.GET, `/v2/surveys?isActive=all&answer=${answer!.uuid.toHexString()}`, {
      token: t.adminToken,
    });
    expect(success(byAnswer).data.surveys.map((s) => s._id)).toEqual([id]);

    const populated = await call(survey.GET, `/v2/surveys/${id}?populate=true`, {
      token: t.adminToken,
      admin: true,
      params: { id },
    });
    expect(populated.status).toBe(200);
    expect(success(populated).chat!.length).toBeGreaterThan(0);
    const counts = success(populated).chat!.flatMap((c) => c.questions.map((q) => q.answerCount));
    expect(counts.reduce((a: number, b: number) => a + b, 0)).toBeGreaterThan(0);
    const history = await call(revisions.GET, `/v2/surveys/${id}/revisions`, {
      token: t.adminToken,
      admin: true,
      params: { id },
    });
    expect(success(history).data.revisions.map((r) => r.__v)).toEqual([0]);
    expect(success(history).data.revisions[0].snapshot._id).toBe(id);
  });

  it("is idempotent", async () => {
    const again = await seedSurveys({ companyId: t.companyId });
    expect(again.created).toEqual({ surveys: 0, chats: 0, questions: 0, answers: 0 });
    expect(await Survey.countDocuments({ company: oid(t.companyId) })).toBe(24);
  });

  it("skips a demo survey whose code is taken, with its parts", async () => {
    const other = await createTenant("Seeded surveys taken");
    await call(surveys.POST, "/v2/surveys", {
      token: other.adminToken,
      admin: true,
      body: { code: "onboarding", name: "Mine", version: 1 },
    });
    const result = await seedSurveys({ companyId: other.companyId });
    expect(result.created.surveys).toBe(23);
    const mine = await Survey.findOne({ company: oid(other.companyId), code: "onboarding" }).lean();
    expect(mine?.name).toBe("Mine");
    expect(await Answer.countDocuments({ survey: mine!._id })).toBe(0);
  });
});
