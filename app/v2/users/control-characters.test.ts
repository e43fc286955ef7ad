/** Single-line text fields refuse control characters (docs/api.md, "Text fields"). */
import { Survey } from "@/lib/resources/surveys/repository";
import { User } from "@/lib/resources/users/repository";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, type CallResult, createTenant, failure, success, type Tenant } from "@/lib/tools/testing/http";
import { beforeAll, describe, expect, it } from "vitest";
import * as jobTitles from "../job-titles/route";
import * as survey from "../surveys/[id]/route";
import * as surveys from "../surveys/route";
import * as user from "./[id]/route";
import * as users from "./route";

const name = { displayName: "Ana Pérez", names: "Ana", lastName: "Pérez", secondLastName: "" };

/** NUL, other C0 controls, line breaks, DEL, a C1 control and the Unicode line separator. */
const CONTROLS = ["\u0000", "\u0007", "\t", "\n", "\r", "\u001b", "\u007f", "\u0085", "\u009b", "\u2028"];

describe("control characters in text fields", () => {
  useTestDatabase();
  let t: Tenant;

  beforeAll(async () => {
    t = await createTenant("Control characters");
  });

  const expectRefused = (response: CallResult, path: string) => {
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(failure(response).code).toBe("invalid_request");
    expect(failure(response).details).toContainEqual({ path, message: expect.stringContaining("control characters") });
  };

  it("user names, phone and e-mail: 400 naming the field, nothing stored", async () => {
    for (const control of CONTROLS) {
      for (const [field, body] of [
        ["name.names", { name: { ...name, names: `An${control}a` } }],
        ["name.displayName", { name: { ...name, displayName: `Ana${control}Pérez` } }],
        ["name.secondLastName", { name: { ...name, secondLastName: `X${control}Y` } }],
        ["phone", { phone: `+34${control}600` }],
        ["email", { email: `a${control}b@control.test` }],
      ] as const) {
        const response = await call(users.POST, "/v2/users", {
          token: t.adminToken,
          admin: true,
          body: { email: "control@control.test", accessRoles: [t.memberRoleId], ...body },
        });
        expectRefused(response, field);
      }
    }
    expect(await User.countDocuments({ email: /control\.test$/ })).toBe(0);
  });

  it("a PATCH of a name part or phone with a control character changes nothing", async () => {
    const created = success(
      await call(users.POST, "/v2/users", {
        token: t.adminToken,
        admin: true,
        body: { email: "ok@control.test", accessRoles: [t.memberRoleId], name },
      }),
    );
    for (const body of [{ name: { lastName: "P\u0000" } }, { phone: "1\n2" }]) {
      const response = await call(user.PATCH, `/v2/users/${created._id}`, {
        method: "PATCH",
        token: t.adminToken,
        admin: true,
        params: { id: created._id },
        body,
      });
      expectRefused(response, Object.keys(body)[0] === "name" ? "name.lastName" : "phone");
    }
    const stored = success(
      await call(user.GET, `/v2/users/${created._id}`, { token: t.adminToken, params: { id: created._id } }),
    );
    expect(stored).toEqual(created);
  });

  it("survey names and group names, reference data names: 400 naming the field", async () => {
    const created = await call(surveys.POST, "/v2/surveys", {
      token: t.adminToken,
      admin: true,
      body: { code: "nul_name", name: "Bad\u0000name", version: 1 },
    });
    expectRefused(created, "name");
    expect(await Survey.countDocuments({ code: "nul_name" })).toBe(0);

    const good = success(
      await call(surveys.POST, "/v2/surveys", {
        token: t.adminToken,
        admin: true,
        body: { code: "good_name", name: "Good", version: 1 },
      }),
    );
    const renamed = await call(survey.PATCH, `/v2/surveys/${good._id}`, {
      method: "PATCH",
      token: t.adminToken,
      admin: true,
      params: { id: good._id },
      body: { name: "Two\nlines" },
    });
    expectRefused(renamed, "name");
    const grouped = await call(survey.PATCH, `/v2/surveys/${good._id}`, {
      method: "PATCH",
      token: t.adminToken,
      admin: true,
      params: { id: good._id },
      body: { group: "G\u0085" },
    });
    expectRefused(grouped, "group");
    expect((await Survey.findById(good._id).lean())?.name).toBe("Good");

    expectRefused(
      await call(jobTitles.POST, "/v2/job-titles", { token: t.adminToken, admin: true, body: { name: "Chief\u0007" } }),
      "name",
    );
  });

  it("search queries with control characters are refused too; ordinary text still passes", async () => {
    expectRefused(await call(users.GET, "/v2/users?search=an%00a", { token: t.adminToken }), "search");
    expectRefused(await call(surveys.GET, "/v2/surveys?search=a%0Ab", { token: t.adminToken }), "search");
    const fine = await call(users.POST, "/v2/users", {
      token: t.adminToken,
      admin: true,
      body: {
        email: "émile@control.test",
        accessRoles: [t.memberRoleId],
        name: { displayName: "Émile Zoë 😀", names: "Émile", lastName: "Zoë", secondLastName: "" },
        phone: "+34 (600) 100-200",
      },
    });
    expect(fine.status, JSON.stringify(fine.body)).toBe(201);
  });
});
