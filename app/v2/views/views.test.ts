import { MAX_VIEWS_PER_OWNER } from "@/lib/resources/views/contract";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, createTenant, failure, success, type Tenant } from "@/lib/tools/testing/http";
import { beforeAll, describe, expect, it } from "vitest";
import * as view from "./[id]/route";
import * as views from "./route";

describe("saved views", () => {
  useTestDatabase();
  let a: Tenant;
  let b: Tenant;

  beforeAll(async () => {
    a = await createTenant("Views A");
    b = await createTenant("Views B");
  });

  const asMember = (tenant: Tenant, extra: Record<string, unknown> = {}) => ({ token: tenant.memberToken, ...extra });
  const asAdmin = (tenant: Tenant, extra: Record<string, unknown> = {}) => ({ token: tenant.adminToken, ...extra });
  const save = (options: { token: string }, body: Record<string, unknown>) =>
    call(views.POST, "/v2/views", { ...options, body });
  const ids = (body: { data: { views: { _id: string }[] } }) => body.data.views.map((item) => item._id);
  const byId = (id: string, extra: Record<string, unknown> = {}) => ({ params: { id }, ...extra });

  it("saves, lists, reads, renames, changes and deletes a view; the query is kept without paging", async () => {
    const created = await save(asMember(a), {
      resource: "users",
      name: "Inactive admins",
      query: "?isActive=false&accessRole=" + a.adminRoleId + "&page=3&cursor=abc&created_gte=2026-01-01",
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      _id: expect.any(String),
      resource: "users",
      name: "Inactive admins",
      query: `isActive=false&accessRole=${a.adminRoleId}&created_gte=2026-01-01`,
      shared: false,
      ownerId: a.memberId,
      editable: true,
      createdAt: expect.any(String),
      modifiedAt: expect.any(String),
    });
    const id = success(created)._id as string;
    expect(created.headers.get("location")).toBe(`/v2/views/${id}`);

    const read = await call(view.GET, `/v2/views/${id}`, asMember(a, byId(id)));
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);

    const listed = await call(views.GET, "/v2/views?resource=users&count=true", asMember(a));
    expect(success(listed).data).toMatchObject({ views: [created.body], counter: 1, next: null });
    expect(success(await call(views.GET, "/v2/views?resource=surveys", asMember(a))).data.views).toEqual([]);

    const patched = await call(
      view.PATCH,
      `/v2/views/${id}`,
      asMember(a, byId(id, { method: "PATCH", body: { name: "Inactive", query: "isActive=all", shared: true } })),
    );
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: "Inactive", query: "isActive=all", shared: true });

    const surveys = await save(asMember(a), {
      resource: "surveys",
      name: "Inactive",
      query: "search=onb&isActive=false&limit=50",
    });
    expect(surveys.status).toBe(201);
    expect(success(surveys).query).toBe("search=onb&isActive=false&limit=50");

    expect((await call(view.DELETE, `/v2/views/${id}`, asMember(a, byId(id, { method: "DELETE" })))).status).toBe(204);
    expect((await call(view.GET, `/v2/views/${id}`, asMember(a, byId(id)))).status).toBe(404);
    expect((await call(view.DELETE, `/v2/views/${id}`, asMember(a, byId(id, { method: "DELETE" })))).status).toBe(404);
  });

  it("keeps a private view to its owner (404 to others, admins too) and shows a shared one to the company, editable by its owner and by an admin with Admin: true", async () => {
    const mine = success(await save(asMember(a), { resource: "users", name: "Mine only", query: "search=ana" }))
      ._id as string;
    const shared = success(
      await save(asMember(a), { resource: "users", name: "For everyone", query: "isActive=all", shared: true }),
    )._id as string;

    const seenByAdmin = await call(views.GET, "/v2/views?resource=users", asAdmin(a));
    expect(ids(success(seenByAdmin))).toContain(shared);
    expect(ids(success(seenByAdmin))).not.toContain(mine);
    for (const options of [asAdmin(a), asAdmin(a, { admin: true })]) {
      expect((await call(view.GET, `/v2/views/${mine}`, { ...options, ...byId(mine) })).status).toBe(404);
      expect(
        (
          await call(view.PATCH, `/v2/views/${mine}`, {
            ...options,
            ...byId(mine, { method: "PATCH", body: { name: "Taken" } }),
          })
        ).status,
      ).toBe(404);
      expect(
        (await call(view.DELETE, `/v2/views/${mine}`, { ...options, ...byId(mine, { method: "DELETE" }) })).status,
      ).toBe(404);
    }

    // A shared view of someone else: readable, not editable without Admin: true.
    const read = await call(view.GET, `/v2/views/${shared}`, asAdmin(a, byId(shared)));
    expect(read.body).toMatchObject({ editable: false, ownerId: a.memberId });
    expect(
      success(await call(view.GET, `/v2/views/${shared}`, asAdmin(a, byId(shared, { admin: true })))).editable,
    ).toBe(true);
    const refused = await call(
      view.PATCH,
      `/v2/views/${shared}`,
      asAdmin(a, byId(shared, { method: "PATCH", body: { name: "Mine now" } })),
    );
    expect(refused.status).toBe(403);
    expect(failure(refused).code).toBe("forbidden");
    const moderated = await call(
      view.PATCH,
      `/v2/views/${shared}`,
      asAdmin(a, byId(shared, { method: "PATCH", admin: true, body: { name: "Everyone, all states" } })),
    );
    expect(moderated.status).toBe(200);
    expect(moderated.body).toMatchObject({ name: "Everyone, all states", ownerId: a.memberId });

    // `mine=true` lists one's own views only.
    expect(ids(success(await call(views.GET, "/v2/views?mine=true", asAdmin(a))))).toEqual([]);
    // A member sending Admin: true (the pages always do) keeps its own rights and gains none.
    expect((await call(views.GET, "/v2/views", asMember(a, { admin: true }))).status).toBe(200);
    const adminView = success(await save(asAdmin(a), { resource: "users", name: "Admin's", shared: true }))
      ._id as string;
    expect(
      (
        await call(
          view.DELETE,
          `/v2/views/${adminView}`,
          asMember(a, byId(adminView, { method: "DELETE", admin: true })),
        )
      ).status,
    ).toBe(403);
    expect(
      (await call(view.DELETE, `/v2/views/${shared}`, asAdmin(a, byId(shared, { method: "DELETE", admin: true }))))
        .status,
    ).toBe(204);
  });

  it("shows nothing of one company to another, shared views included", async () => {
    const shared = success(await save(asMember(a), { resource: "surveys", name: "Company A's", shared: true }))
      ._id as string;
    for (const options of [asAdmin(b, { admin: true }), asMember(b)]) {
      expect((await call(view.GET, `/v2/views/${shared}`, { ...options, ...byId(shared) })).status).toBe(404);
      expect(
        (
          await call(view.PATCH, `/v2/views/${shared}`, {
            ...options,
            ...byId(shared, { method: "PATCH", body: { name: "B" } }),
          })
        ).status,
      ).toBe(404);
      expect(
        (await call(view.DELETE, `/v2/views/${shared}`, { ...options, ...byId(shared, { method: "DELETE" }) })).status,
      ).toBe(404);
      expect(ids(success(await call(views.GET, "/v2/views", options)))).not.toContain(shared);
    }
    // The same name is free in another company, and for another owner.
    expect((await save(asMember(b), { resource: "surveys", name: "Company A's", shared: true })).status).toBe(201);
    expect((await save(asAdmin(a), { resource: "surveys", name: "Company A's" })).status).toBe(201);
  });

  it("refuses bad input: a query the list refuses, unknown parameters, bad names, duplicates, bad ids, and more views than the cap", async () => {
    const bad = async (body: Record<string, unknown>, path: string) => {
      const answer = await save(asMember(a), body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(failure(answer).code).toBe("invalid_request");
      expect(failure(answer).details?.map((detail: { path: string }) => detail.path)).toContain(path);
    };
    await bad({ resource: "users", name: "x", query: "isActive=maybe" }, "query.isActive");
    await bad({ resource: "users", name: "x", query: "limit=1000" }, "query.limit");
    await bad({ resource: "users", name: "x", query: "accessRole=nope" }, "query.accessRole");
    await bad({ resource: "users", name: "x", query: "created_gte=yesterday" }, "query.created_gte");
    await bad({ resource: "users", name: "x", query: "isactive=false" }, "query.isactive");
    await bad({ resource: "users", name: "x", query: "email[$ne]=a" }, "query.email[$ne]");
    await bad({ resource: "users", name: "x", query: "search=a&search=b" }, "query.search");
    await bad({ resource: "surveys", name: "x", query: "accessRole=" + a.adminRoleId }, "query.accessRole");
    await bad({ resource: "users", name: "x", query: "x".repeat(5000) }, "query");
    await bad({ resource: "accounts", name: "x" }, "resource");
    await bad({ resource: "users", name: "  " }, "name");
    await bad({ resource: "users", name: "a\nb" }, "name");
    await bad({ resource: "users", name: "x", shared: "yes" }, "shared");
    await bad({ resource: "users", name: "x", ownerId: a.adminId }, "ownerId");
    expect((await call(views.GET, "/v2/views?resource=accounts", asMember(a))).status).toBe(400);
    expect((await call(view.GET, "/v2/views/nope", asMember(a, byId("nope")))).status).toBe(400);

    expect((await save(asMember(a), { resource: "users", name: "Twice" })).status).toBe(201);
    const twice = await save(asMember(a), { resource: "users", name: "TWICE" });
    expect(twice.status).toBe(409);
    expect(failure(twice).code).toBe("conflict");
    const other = success(await save(asMember(a), { resource: "users", name: "Other" }))._id as string;
    expect(
      (
        await call(
          view.PATCH,
          `/v2/views/${other}`,
          asMember(a, byId(other, { method: "PATCH", body: { name: "twice" } })),
        )
      ).status,
    ).toBe(409);
    expect(
      (
        await call(
          view.PATCH,
          `/v2/views/${other}`,
          asMember(a, byId(other, { method: "PATCH", body: { query: "orderBy=sideways" } })),
        )
      ).status,
    ).toBe(400);

    const owner = await createTenant("Views cap");
    for (let index = 0; index < MAX_VIEWS_PER_OWNER; index++)
      expect((await save(asMember(owner), { resource: "surveys", name: `View ${index}` })).status).toBe(201);
    const over = await save(asMember(owner), { resource: "surveys", name: "One too many" });
    expect(over.status).toBe(409);
    expect(failure(over).message).toMatch(/100 saved views/);
    expect((await save(asMember(owner), { resource: "users", name: "Another list" })).status).toBe(201);
  });
});
