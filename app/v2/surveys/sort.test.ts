/**
 * The orders of GET /v2/surveys (docs/api.md#sorting): by name, code and modification, both
 * ways, by page and by cursor across ties, with `select`, within the company, hostile values refused.
 */
import { oid } from "@/lib/kernel/ids";
import type { SurveyRecord } from "@/lib/resources/surveys/contract";
import { Survey } from "@/lib/resources/surveys/repository";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, createTenant, failure, success, type Tenant } from "@/lib/tools/testing/http";
import { beforeAll, describe, expect, it } from "vitest";
import * as apiKeys from "../api-keys/route";
import * as surveys from "./route";

const SURVEYS: [string, string][] = [
  ["zulu", "Onboarding"],
  ["alpha", "exit interview"],
  ["mike", "Évaluation"],
  ["bravo", "climate"],
  ["echo", "Climate"],
  ["delta", "CLIMATE"],
  ["kilo", "benefits"],
];

describe("sorting GET /v2/surveys", () => {
  useTestDatabase();
  let t: Tenant;
  let other: Tenant;

  const list = (query: string, token = t.adminToken) =>
    call(surveys.GET, `/v2/surveys?isActive=all&${query}`, { token });
  const listed = async (query: string) => {
    const response = await list(query);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return success(response).data.surveys as Partial<SurveyRecord>[];
  };
  async function walk(query: string): Promise<Partial<SurveyRecord>[]> {
    const seen: Partial<SurveyRecord>[] = [];
    let next: string | null = null;
    do {
      const response = await list(`${query}${next ? `&cursor=${encodeURIComponent(next)}` : ""}`);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      seen.push(...success(response).data.surveys);
      next = success(response).data.next;
      expect(seen.length).toBeLessThan(50);
    } while (next);
    return seen;
  }

  beforeAll(async () => {
    [t, other] = await Promise.all([createTenant("Sorting surveys"), createTenant("Sorting surveys other")]);
    for (const [code, name] of SURVEYS) {
      const created = await call(surveys.POST, "/v2/surveys", {
        token: t.adminToken,
        admin: true,
        body: { code, name, version: 1, isActive: code !== "kilo" },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
    }
    // Three surveys share one modification time: only _id tells them apart.
    await Survey.updateMany(
      { company: oid(t.companyId), code: { $in: ["bravo", "echo", "delta"] } },
      { $set: { modifiedAt: new Date("2026-01-01T00:00:00.000Z") } },
    );
    await call(surveys.POST, "/v2/surveys", {
      token: other.adminToken,
      admin: true,
      body: { code: "aaa", name: "Aaa", version: 1 },
    });
  });

  it("sorts by name case-insensitively, _id breaking ties, both ways", async () => {
    const asc = await listed("sort=name&orderBy=asc&limit=100");
    expect(asc.map((s) => s.name!.toLowerCase())).toEqual([
      "benefits",
      "climate",
      "climate",
      "climate",
      "exit interview",
      "onboarding",
      "évaluation",
    ]);
    const climates = asc.filter((s) => s.name!.toLowerCase() === "climate").map((s) => s._id!);
    expect(climates).toEqual([...climates].sort());
    expect((await listed("sort=name&orderBy=desc&limit=100")).map((s) => s._id)).toEqual(
      asc.map((s) => s._id).reverse(),
    );
  });

  it("sorts by code and by modification, both ways; active only by default", async () => {
    const codes = (await listed("sort=code&orderBy=asc&limit=100")).map((s) => s.code);
    expect(codes).toEqual(["alpha", "bravo", "delta", "echo", "kilo", "mike", "zulu"]);
    expect((await listed("sort=code&orderBy=desc&limit=100")).map((s) => s.code)).toEqual([...codes].reverse());
    const active = await call(surveys.GET, "/v2/surveys?sort=code&orderBy=asc", { token: t.adminToken });
    expect(success(active).data.surveys.map((s: Partial<SurveyRecord>) => s.code)).toEqual(
      codes.filter((code) => code !== "kilo"),
    );
    const byModification = await listed("sort=modifiedAt&orderBy=asc&limit=100");
    const keys = byModification.map((s) => `${s.modifiedAt}|${s._id}`);
    expect(keys).toEqual([...keys].sort());
  });

  it("walks every order by cursor and by page alike, also with select leaving the sort field out", async () => {
    for (const sort of ["name", "code", "modifiedAt"]) {
      for (const orderBy of ["asc", "desc"]) {
        const whole = (await listed(`sort=${sort}&orderBy=${orderBy}&limit=100`)).map((s) => s._id);
        expect(
          (await walk(`sort=${sort}&orderBy=${orderBy}&limit=2`)).map((s) => s._id),
          `${sort} ${orderBy}`,
        ).toEqual(whole);
        const selected = await walk(`sort=${sort}&orderBy=${orderBy}&limit=2&select=isActive`);
        expect(
          selected.map((s) => s._id),
          `${sort} ${orderBy} select`,
        ).toEqual(whole);
        expect(Object.keys(selected[0]).sort()).toEqual(["_id", "isActive"]);
        const byPage: string[] = [];
        for (let page = 1; page <= 3; page++)
          byPage.push(...(await listed(`sort=${sort}&orderBy=${orderBy}&limit=3&page=${page}`)).map((s) => s._id!));
        expect(byPage, `${sort} ${orderBy} pages`).toEqual(whole);
      }
    }
  });

  it("a cursor belongs to its order", async () => {
    const next = success(await list("sort=code&orderBy=asc&limit=2")).data.next!;
    const response = await list(`sort=name&orderBy=asc&limit=2&cursor=${encodeURIComponent(next)}`);
    expect(response.status).toBe(400);
    expect(failure(response).details?.[0].path).toBe("cursor");
  });

  it("keeps to the company, and to the scope", async () => {
    expect((await listed("sort=code&orderBy=asc&limit=100")).map((s) => s.code)).not.toContain("aaa");
    const make = async (scopes: string[]) =>
      success(
        await call(apiKeys.POST, "/v2/api-keys", {
          token: t.adminToken,
          admin: true,
          body: { name: `Survey sorter ${scopes.join(" ")}`, scopes },
        }),
      ).key!;
    expect((await list("sort=name", await make(["surveys:read"]))).status).toBe(200);
    const refused = await list("sort=name", await make(["users:read"]));
    expect(refused.status).toBe(403);
    expect(failure(refused).code).toBe("insufficient_scope");
  });

  it("refuses hostile orders with 400 naming the parameter", async () => {
    for (const query of [
      "sort=nameLower",
      "sort=createdAt",
      "sort=$natural",
      "sort=code&sort=name",
      "orderBy=-1",
      "orderBy=DESC",
    ]) {
      const response = await list(query);
      expect(response.status, query).toBe(400);
      expect(failure(response).details?.[0].path, query).toMatch(/^(sort|orderBy)/);
    }
  });
});
