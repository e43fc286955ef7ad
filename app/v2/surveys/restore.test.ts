/**
 * A restore of a revision, as the history page makes it (lib/client/survey-restore.ts), against
 * the real handlers: the new revision holds what the chosen one held, fields and content, so the
 * page's comparison of the two finds nothing.
 */
import { changedRestoredFields, restorePlan, revisionContentChanges } from "@/lib/client/survey-restore";
import type { SurveyRevisionRecord } from "@/lib/resources/surveys/contract";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, createTenant, success, type Tenant } from "@/lib/tools/testing/http";
import { beforeAll, describe, expect, it } from "vitest";
import * as accessRoles from "../access-roles/route";
import * as answers from "./[id]/answers/route";
import * as content from "./[id]/content/route";
import * as revisions from "./[id]/revisions/route";
import * as survey from "./[id]/route";
import * as surveys from "./route";

describe("restoring a survey revision", () => {
  useTestDatabase();
  let t: Tenant;
  let viewerRole: string;
  let n = 0;

  beforeAll(async () => {
    t = await createTenant("Restore");
    viewerRole = success(
      await call(accessRoles.POST, "/v2/access-roles", { token: t.adminToken, admin: true, body: { name: "Viewer" } }),
    )._id;
  });

  const admin = () => ({ token: t.adminToken, admin: true as const });

  async function create(body: Record<string, unknown> = {}) {
    const response = await call(surveys.POST, "/v2/surveys", {
      ...admin(),
      body: {
        code: `restore_${++n}`,
        name: `Survey ${n}`,
        version: 2,
        permissionsV2: [{ accessRole: t.memberRoleId, canAnswer: true }],
        ...body,
      },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return success(response)._id;
  }

  const put = async (id: string, body: unknown) => {
    const response = await call(content.PUT, `/v2/surveys/${id}/content`, {
      ...admin(),
      method: "PUT",
      body,
      params: { id },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return success(response);
  };
  const patch = async (id: string, body: unknown) => {
    const response = await call(survey.PATCH, `/v2/surveys/${id}`, {
      ...admin(),
      method: "PATCH",
      body,
      params: { id },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return success(response);
  };
  const populated = async (id: string) =>
    success(await call(survey.GET, `/v2/surveys/${id}?populate=true`, { ...admin(), params: { id } }));
  const history = async (id: string): Promise<SurveyRevisionRecord[]> =>
    success(await call(revisions.GET, `/v2/surveys/${id}/revisions?limit=100`, { ...admin(), params: { id } })).data
      .revisions;

  /** Restores revision `v` as the page does, and answers the chosen revision and the new one. */
  async function restore(id: string, v: number) {
    const chosen = (await history(id)).find((revision) => revision.__v === v)!;
    const plan = restorePlan(chosen, await populated(id));
    if (plan.patch) await patch(id, plan.patch);
    if (plan.content) await put(id, plan.content);
    const [newest] = await history(id);
    return { chosen, newest: newest! };
  }

  /** What the history shows between the two: no field and no content change. */
  const expectSame = ({ chosen, newest }: { chosen: SurveyRevisionRecord; newest: SurveyRevisionRecord }) => {
    expect(newest.__v).toBeGreaterThan(chosen.__v);
    expect(changedRestoredFields(chosen.snapshot, newest.snapshot)).toEqual([]);
    expect(revisionContentChanges(chosen.snapshot, newest.snapshot)).toEqual([]);
  };

  it("a revision without chats: the chats and questions added later are removed, their answers kept", async () => {
    const id = await create();
    const after = await put(id, {
      chat: [
        {
          name: "Welcome",
          questions: [
            { text: "Your name?", type: "text" },
            { text: "Happy?", type: "yes_no" },
            { text: "Rate us", type: "rating" },
          ],
        },
      ],
    });
    const question = after.chat![0]!.questions[0]!;
    const answered = await call(answers.POST, `/v2/surveys/${id}/answers`, {
      token: t.memberToken,
      body: { answers: [{ question: question._id, value: "Ana" }] },
      params: { id },
    });
    expect(answered.status, JSON.stringify(answered.body)).toBe(201);

    const restored = await restore(id, 0);
    expect(restored.chosen.snapshot.chat).toBeUndefined();
    expectSame(restored);
    expect((await populated(id)).chat).toEqual([]);
    // The answer is kept with its removed question: restoring revision 1 brings both back.
    expectSame(await restore(id, 1));
    expect((await populated(id)).chat![0]!.questions[0]).toMatchObject({ _id: question._id, answerCount: 1 });
  });

  it("a revision with fewer questions: the later ones are removed, the kept ones take their old wording and places", async () => {
    const id = await create();
    const first = await put(id, {
      chat: [
        {
          name: "One",
          questions: [
            { text: "First?", type: "text" },
            { text: "Second?", type: "number" },
          ],
        },
      ],
    });
    const [q1, q2] = first.chat![0]!.questions;
    await put(id, {
      chat: [
        {
          _id: first.chat![0]!._id,
          name: "One, renamed",
          questions: [
            { _id: q2!._id, text: "Second, reworded?", type: "number" },
            { text: "Third?", type: "date" },
            { _id: q1!._id, text: "First?", type: "text" },
          ],
        },
        { name: "Two", questions: [{ text: "Pick", type: "single_choice", options: ["A", "B"] }] },
      ],
    });
    expectSame(await restore(id, 1));
    expect(
      (await populated(id)).chat!.map((chat) => [chat.name, chat.questions.map((question) => question.text)]),
    ).toEqual([["One", ["First?", "Second?"]]]);
  });

  it("a revision with other permissions, across a change of the permission model, and other fields", async () => {
    const id = await create({
      permissionsV2: [{ accessRole: t.memberRoleId, canAnswer: true, canViewAnswers: false }],
      groupPermissionsV2: [{ group: "north", accessRoles: [viewerRole] }],
    });
    await patch(id, {
      permissionsV2: [{ accessRole: viewerRole, canAnswer: false, canViewAnswers: true }],
      name: "Renamed",
      isActive: false,
    });
    await patch(id, { version: 1, permissions: [viewerRole, t.memberRoleId], group: "south" });
    const restored = await restore(id, 0);
    expectSame(restored);
    expect(restored.newest.snapshot).toMatchObject({
      version: 2,
      name: `Survey ${n}`,
      isActive: true,
      permissionsV2: [{ accessRole: t.memberRoleId, canAnswer: true, canViewAnswers: false }],
    });
    // And back to the version 1 state, permissions and all.
    expectSame(await restore(id, 2));
  });

  it("a restore of the current state is still one new revision, equal to it", async () => {
    const id = await create();
    await put(id, { chat: [{ name: "Only", questions: [{ text: "Q?", type: "text" }] }] });
    const restored = await restore(id, 1);
    expect(restored.newest.__v).toBe(2);
    expectSame(restored);
  });
});
