import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, createTenant, failure, success, type Tenant } from "@/lib/tools/testing/http";
import { beforeAll, describe, expect, it } from "vitest";
import * as users from "../users/route";
import * as outbox from "./route";

describe("GET /v2/outbox", () => {
  useTestDatabase();
  let t: Tenant;
  let other: Tenant;

  const invite = (tenant: Tenant, email: string) =>
    call(users.POST, "/v2/users?notifyEmail=true", {
      token: tenant.adminToken,
      admin: true,
      body: { email, accessRoles: [tenant.memberRoleId] },
    });

  beforeAll(async () => {
    t = await createTenant("Outbox");
    other = await createTenant("Other outbox");
    for (const email of ["first@outbox.test", "second@outbox.test", "third@outbox.test"])
      expect((await invite(t, email)).status).toBe(201);
    expect((await invite(other, "elsewhere@outbox.test")).status).toBe(201);
  });

  it("lists the company's invitations newest first, with the link, paged and counted", async () => {
    const response = await call(outbox.GET, "/v2/outbox?limit=2&count=true", { token: t.adminToken, admin: true });
    expect(response.status).toBe(200);
    const { mails, page, limit, counter } = success(response).data;
    expect({ page, limit, counter }).toEqual({ page: 1, limit: 2, counter: 3 });
    expect(mails.map((mail) => mail.to)).toEqual(["third@outbox.test", "second@outbox.test"]);
    expect(mails[0].text).toMatch(/\/invitation\/[\w-]+/);
    expect(mails[0].createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const next = await call(outbox.GET, "/v2/outbox?limit=2&page=2", { token: t.adminToken, admin: true });
    expect(success(next).data.mails.map((mail) => mail.to)).toEqual(["first@outbox.test"]);
  });

  it("filters by recipient, case-insensitively", async () => {
    const response = await call(outbox.GET, "/v2/outbox?to=SECOND@outbox.test", { token: t.adminToken, admin: true });
    expect(success(response).data.mails.map((mail) => mail.to)).toEqual(["second@outbox.test"]);
  });

  it("never shows another company's mail", async () => {
    const response = await call(outbox.GET, "/v2/outbox?count=true", { token: other.adminToken, admin: true });
    expect(success(response).data.counter).toBe(1);
    expect(success(response).data.mails[0].to).toBe("elsewhere@outbox.test");
  });

  it("is for admins only", async () => {
    expect((await call(outbox.GET, "/v2/outbox", { token: t.adminToken })).status).toBe(403);
    expect(failure(await call(outbox.GET, "/v2/outbox", { token: t.memberToken, admin: true })).code).toBe("forbidden");
    expect((await call(outbox.GET, "/v2/outbox")).status).toBe(401);
  });

  it("refuses a bad page size", async () => {
    const response = await call(outbox.GET, "/v2/outbox?limit=1000", { token: t.adminToken, admin: true });
    expect(response.status).toBe(400);
    expect(failure(response).details![0].path).toBe("limit");
  });
});
