/**
 * Seeded records are built by the same `newDoc()` as the API's: a user or survey of the demo data
 * is stored with exactly the fields (and nested fields) of one created through `/v2`.
 */
import * as contentRoute from "@/app/v2/surveys/[id]/content/route";
import * as surveys from "@/app/v2/surveys/route";
import * as users from "@/app/v2/users/route";
import { oid } from "@/lib/kernel/ids";
import { Survey } from "@/lib/resources/surveys/repository";
import { User } from "@/lib/resources/users/repository";
import { seedSurveys } from "@/lib/tools/seed/surveys";
import { seedDemo } from "@/lib/tools/seed/users";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, createTenant, success, type Tenant } from "@/lib/tools/testing/http";
import { beforeAll, describe, expect, it } from "vitest";

/** The paths of every field of a stored document (array elements under `[]`), sorted. */
function shape(value: unknown, path = ""): string[] {
  if (Array.isArray(value)) return [...new Set(value.flatMap((item) => shape(item, `${path}[]`)))].sort();
  if (value && typeof value === "object" && value.constructor === Object) {
    return Object.entries(value)
      .flatMap(([key, inner]) => [`${path}${key}`, ...shape(inner, `${path}${key}.`)])
      .sort();
  }
  return [];
}

describe("seeded and API-created records", () => {
  useTestDatabase();
  let t: Tenant;

  beforeAll(async () => {
    t = await createTenant("Shapes");
    await seedDemo({ companyId: t.companyId, users: 12 });
    await seedSurveys({ companyId: t.companyId, surveys: 2 });
  });

  it("store a user with the same fields", async () => {
    const created = await call(users.POST, "/v2/users", {
      method: "POST",
      token: t.adminToken,
      admin: true,
      body: {
        email: "Shape.Check@Example.com",
        name: { displayName: "Shape Check", names: "Shape", lastName: "Check", secondLastName: "" },
        accessRoles: [t.memberRoleId],
        properties: [],
        // The seed marks its users so; free-form, and part of the shape only as that one key.
        extensions: { seeded: false },
      },
    });
    expect(created.body).toMatchObject({ email: "shape.check@example.com" });
    const api = await User.collection.findOne({ _id: oid(success(created)._id) });
    // The seed's first user has a boss-less hierarchy, a job, properties and a name: every field.
    const seeded = await User.collection.findOne({ email: { $regex: /\.0@demo\.example$/ } });
    expect(api?.email).toBe("shape.check@example.com");
    expect(seeded).not.toBeNull();
    expect(shape(seeded)).toEqual(shape(api));
  });

  it("store a survey with the same fields", async () => {
    const created = await call(surveys.POST, "/v2/surveys", {
      method: "POST",
      token: t.adminToken,
      admin: true,
      body: {
        code: "shape_check",
        name: "Shape check",
        version: 2,
        permissionsV2: [{ accessRole: t.memberRoleId }],
        groupPermissionsV2: [{ group: "People", accessRoles: [t.adminRoleId] }],
      },
    });
    expect(created.status).toBe(201);
    // A seeded survey has content: so does this one, once its content is written.
    const id = success(created)._id;
    const content = {
      chat: [{ name: "Part 1", questions: [{ text: "Which team?", type: "single_choice", options: ["A", "B"] }] }],
    };
    expect(
      (
        await call(contentRoute.PUT, `/v2/surveys/${id}/content`, {
          method: "PUT",
          token: t.adminToken,
          admin: true,
          body: content,
          params: { id },
        })
      ).status,
    ).toBe(200);
    const api = await Survey.collection.findOne({ _id: oid(id) });
    // The seed's second survey is of version 2 with both kinds of permission entries.
    const seeded = await Survey.collection.findOne({
      company: oid(t.companyId),
      code: { $ne: "shape_check" },
      version: 2,
    });
    expect(seeded).not.toBeNull();
    // `previous` is the state a write replaced (docs/api.md#revisions): never there before a change.
    expect(shape(seeded)).toEqual(shape(api).filter((path) => !path.startsWith("previous")));
  });
});
