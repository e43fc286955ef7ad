import * as login from "@/app/api/auth/login/route";
import * as logout from "@/app/api/auth/logout/route";
import { newId } from "@/lib/kernel/ids";
import { AuditLog, retentionIndex, syncRetention } from "@/lib/resources/audit/repository";
import { Event } from "@/lib/resources/events/repository";
import { User } from "@/lib/resources/users/repository";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, createTenant, failure, success, type Tenant } from "@/lib/tools/testing/http";
import { beforeAll, describe, expect, it, vi } from "vitest";
import * as apiKey from "../api-keys/[id]/route";
import * as apiKeys from "../api-keys/route";
import * as jobTitle from "../job-titles/[id]/route";
import * as jobTitles from "../job-titles/route";
import * as survey from "../surveys/[id]/route";
import * as surveys from "../surveys/route";
import * as user from "../users/[id]/route";
import * as users from "../users/route";
import * as rotate from "../webhooks/[id]/rotate-secret/route";
import * as webhook from "../webhooks/[id]/route";
import * as webhooks from "../webhooks/route";
import * as auditLog from "./route";

process.env.WEBHOOK_ALLOWED_HOSTS = "127.0.0.1";

describe("audit log", () => {
  useTestDatabase();
  let a: Tenant;
  let b: Tenant;

  beforeAll(async () => {
    a = await createTenant("Audit A");
    b = await createTenant("Audit B");
  });

  const as = (tenant: Tenant, extra: Record<string, unknown> = {}) => ({
    token: tenant.adminToken,
    admin: true,
    headers: { "user-agent": "audit-test/1.0" },
    ...extra,
  });
  const log = (tenant: Tenant, query = "") => call(auditLog.GET, `/v2/audit-log${query}`, as(tenant));
  const entriesOf = async (tenant: Tenant, query: string) => {
    const response = await log(tenant, query);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return success(response).data.entries;
  };
  const adminName = async (tenant: Tenant) => {
    const admin = (await User.findById(tenant.adminId).lean())!;
    return admin.name?.displayName || admin.email;
  };
  const createUser = async (tenant: Tenant, body: Record<string, unknown>) => {
    const response = await call(
      users.POST,
      "/v2/users",
      as(tenant, { body: { accessRoles: [tenant.memberRoleId], ...body } }),
    );
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return success(response);
  };

  it("writes one entry per change of a user, with each changed field before and after, who acted and the request", async () => {
    const created = await createUser(a, {
      email: "ana@audit.test",
      name: { displayName: "Ana", names: "Ana", lastName: "Old", secondLastName: "" },
      phone: "1",
    });
    const patched = await call(
      user.PATCH,
      `/v2/users/${created._id}`,
      as(a, {
        method: "PATCH",
        params: { id: created._id },
        body: { name: { displayName: "Ana", names: "Ana", lastName: "New", secondLastName: "" }, phone: "2" },
        headers: { "user-agent": "audit-test/1.0", "x-request-id": "req-audit-1" },
      }),
    );
    expect(patched.status).toBe(200);
    // A PATCH that changes nothing writes nothing.
    await call(
      user.PATCH,
      `/v2/users/${created._id}`,
      as(a, { method: "PATCH", params: { id: created._id }, body: { phone: "2" } }),
    );

    const entries = await entriesOf(a, `?resourceId=${created._id}`);
    expect(entries.map((entry) => entry.action)).toEqual(["user.updated", "user.created"]);
    const [updated, create] = entries;
    expect(updated).toEqual({
      _id: expect.any(String),
      action: "user.updated",
      resource: { type: "user", id: created._id },
      actor: { type: "user", id: a.adminId, name: await adminName(a) },
      changes: [
        { path: "name.lastName", before: "Old", after: "New" },
        { path: "phone", before: "1", after: "2" },
      ],
      requestId: "req-audit-1",
      ip: expect.any(String),
      userAgent: "audit-test/1.0",
      createdAt: expect.stringMatching(/Z$/),
    });
    expect(create.changes).toEqual(
      expect.arrayContaining([
        { path: "email", before: null, after: "ana@audit.test" },
        { path: "phone", before: null, after: "1" },
      ]),
    );
    expect(create.changes.map((change) => change.path)).not.toContain("search");
    // As many entries as events, for the same changes.
    const events = await Event.find({ "resource.id": created._id }).lean();
    expect(events).toHaveLength(2);
    expect(events.find((event) => event.type === "user.updated")!.changes).toEqual(
      updated.changes.map((change) => change.path),
    );
  });

  it("redacts a new password and stores no hash", async () => {
    const created = await createUser(a, { email: "pw@audit.test", password: "first password 123" });
    await call(
      user.PATCH,
      `/v2/users/${created._id}`,
      as(a, { method: "PATCH", params: { id: created._id }, body: { password: "second password 456" } }),
    );
    const entries = await entriesOf(a, `?resourceId=${created._id}`);
    expect(entries[0].changes).toEqual([{ path: "password", before: "[redacted]", after: "[redacted]" }]);
    expect(entries[1].changes).toContainEqual({ path: "password", before: null, after: "[redacted]" });
    const stored = JSON.stringify(await AuditLog.find({ "resource.id": created._id }).lean());
    expect(stored).not.toContain("first password");
    expect(stored).not.toContain("second password");
    expect(stored).not.toMatch(/\$argon|\$scrypt|\$2[aby]\$/);
  });

  it("never stores an API key, and names the key as the actor of what it does", async () => {
    const made = await call(
      apiKeys.POST,
      "/v2/api-keys",
      as(a, { body: { name: "Sync robot", scopes: ["users:write", "audit:read"] } }),
    );
    expect(made.status).toBe(201);
    const { key, _id } = success(made);
    const entries = await entriesOf(a, `?resourceId=${_id}`);
    expect(entries).toHaveLength(1);
    expect(entries[0].action).toBe("apiKey.created");
    expect(entries[0].changes).toContainEqual({ path: "name", before: null, after: "Sync robot" });
    const stored = JSON.stringify(await AuditLog.find({ company: a.companyId }).lean());
    expect(stored).not.toContain(key);
    expect(stored).not.toContain(key!.slice(12));

    const byKey = await call(users.POST, "/v2/users", {
      token: key,
      admin: true,
      body: { email: "robot-made@audit.test", accessRoles: [a.memberRoleId] },
    });
    expect(byKey.status).toBe(201);
    const [entry] = await entriesOf(a, `?resourceId=${success(byKey)._id}`);
    expect(entry.actor).toEqual({ type: "apiKey", id: _id, name: "Sync robot" });
    // The key reads the log too, with its scope and Admin: true.
    expect(
      success(await call(auditLog.GET, `/v2/audit-log?actorId=${_id}`, { token: key, admin: true })).data.entries,
    ).toHaveLength(1);

    await call(apiKey.DELETE, `/v2/api-keys/${_id}`, as(a, { method: "DELETE", params: { id: _id } }));
    const [deleted, created] = await entriesOf(a, `?resourceId=${_id}`);
    expect([deleted.action, created.action]).toEqual(["apiKey.deleted", "apiKey.created"]);
    // A delete keeps what was removed: each field's last value, and nothing after it.
    expect(deleted.changes).toContainEqual({ path: "name", before: "Sync robot", after: null });
    expect(deleted.changes).toContainEqual({ path: "scopes", before: ["users:write", "audit:read"], after: null });
    expect(deleted.changes.every((change: { after: unknown }) => change.after === null)).toBe(true);
    // Its event still lists no fields (docs/api.md#events).
    expect((await Event.findOne({ "resource.id": _id, type: "apiKey.deleted" }).lean())?.changes).toEqual([]);
  });

  it("redacts a webhook's secret on create and rotation, and keeps the before and after of a PATCH", async () => {
    const made = await call(
      webhooks.POST,
      "/v2/webhooks",
      as(a, { body: { url: "http://127.0.0.1:9/hook", events: ["user.created"] } }),
    );
    const id = success(made)._id;
    await call(
      webhook.PATCH,
      `/v2/webhooks/${id}`,
      as(a, { method: "PATCH", params: { id }, body: { events: ["user.*"], isActive: false } }),
    );
    const rotated = await call(
      rotate.POST,
      `/v2/webhooks/${id}/rotate-secret`,
      as(a, { method: "POST", params: { id } }),
    );
    expect(rotated.status).toBe(200);
    const entries = await entriesOf(a, `?resourceType=webhook&resourceId=${id}`);
    expect(entries.map((entry) => [entry.action, entry.changes])).toEqual([
      ["webhook.updated", [{ path: "secret", before: "[redacted]", after: "[redacted]" }]],
      [
        "webhook.updated",
        [
          { path: "events", before: ["user.created"], after: ["user.*"] },
          { path: "isActive", before: true, after: false },
        ],
      ],
      ["webhook.created", expect.arrayContaining([{ path: "url", before: null, after: "http://127.0.0.1:9/hook" }])],
    ]);
    const stored = JSON.stringify(await AuditLog.find({ "resource.id": id }).lean());
    for (const secret of [success(made).secret, success(rotated).secret])
      expect(stored).not.toContain(secret!.slice(6));
  });

  it("shows a webhook URL's secrets masked in every entry, at rest too, and masks entries written before masking", async () => {
    const whole = "http://hook-user:p%40ss@127.0.0.1:9/audited?token=s3cret&a=1";
    const masked = "http://•••@127.0.0.1:9/audited?token=•••&a=•••";
    const id = success(
      await call(webhooks.POST, "/v2/webhooks", as(a, { body: { url: whole, events: ["user.created"] } })),
    )._id;
    const moved = "http://hook-user:p%40ss@127.0.0.1:9/moved?token=s3cret";
    await call(webhook.PATCH, `/v2/webhooks/${id}`, as(a, { method: "PATCH", params: { id }, body: { url: moved } }));
    // Only the token changes: both sides would read the same masked URL, so the entry says the values are hidden.
    await call(
      webhook.PATCH,
      `/v2/webhooks/${id}`,
      as(a, { method: "PATCH", params: { id }, body: { url: moved.replace("s3cret", "n3w-s3cret") } }),
    );
    await call(webhook.DELETE, `/v2/webhooks/${id}`, as(a, { method: "DELETE", params: { id } }));
    const entries = await entriesOf(a, `?resourceType=webhook&resourceId=${id}`);
    const urlChanges = entries.map((entry) => [entry.action, entry.changes.find((change) => change.path === "url")]);
    expect(urlChanges).toEqual([
      ["webhook.deleted", { path: "url", before: "http://•••@127.0.0.1:9/moved?token=•••", after: null }],
      ["webhook.updated", { path: "url", before: "[redacted]", after: "[redacted]" }],
      ["webhook.updated", { path: "url", before: masked, after: "http://•••@127.0.0.1:9/moved?token=•••" }],
      ["webhook.created", { path: "url", before: null, after: masked }],
    ]);
    expect(JSON.stringify(await AuditLog.find({ "resource.id": id }).lean())).not.toMatch(/s3cret|hook-user|p%40ss/);

    // An entry stored whole (before the service masked URLs) is shown masked.
    await AuditLog.collection.insertOne({
      ...(await AuditLog.findOne({ "resource.id": id, action: "webhook.created" }).lean())!,
      _id: newId(),
      changes: [{ path: "url", before: null, after: whole }],
    });
    const legacy = (await entriesOf(a, `?resourceType=webhook&resourceId=${id}&action=webhook.created`)).map(
      (entry) => entry.changes,
    );
    expect(legacy).toEqual([
      [{ path: "url", before: null, after: masked }],
      expect.arrayContaining([{ path: "url", before: null, after: masked }]),
    ]);
  });

  it("audits surveys and reference data", async () => {
    const made = await call(
      surveys.POST,
      "/v2/surveys",
      as(a, { body: { code: "audit_1", name: "Audit survey", version: 1 } }),
    );
    expect(made.status).toBe(201);
    await call(
      survey.PATCH,
      `/v2/surveys/${success(made)._id}`,
      as(a, { method: "PATCH", params: { id: success(made)._id }, body: { name: "Audited survey" } }),
    );
    const [update] = await entriesOf(a, `?resourceId=${success(made)._id}`);
    expect(update.action).toBe("survey.updated");
    expect(update.changes).toContainEqual({ path: "name", before: "Audit survey", after: "Audited survey" });

    const title = await call(jobTitles.POST, "/v2/job-titles", as(a, { body: { name: "Clerk" } }));
    await call(
      jobTitle.PATCH,
      `/v2/job-titles/${success(title)._id}`,
      as(a, { method: "PATCH", params: { id: success(title)._id }, body: { name: "Head clerk" } }),
    );
    const titleEntries = await entriesOf(a, `?resourceType=jobTitle&resourceId=${success(title)._id}`);
    expect(titleEntries.map((entry) => entry.action)).toEqual(["jobTitle.updated", "jobTitle.created"]);
    expect(titleEntries[0].changes).toEqual([{ path: "name", before: "Clerk", after: "Head clerk" }]);
  });

  it("audits sign-ins, failed sign-ins of known e-mails (without the password) and sign-outs", async () => {
    const password = "a long enough password";
    const member = await createUser(a, {
      email: "signer@audit.test",
      password,
      name: { displayName: "Sig Ner", names: "Sig", lastName: "Ner", secondLastName: "" },
    });
    const headers = { "user-agent": "browser/2" };
    const ok = await call(login.POST, "/api/auth/login", { body: { email: "signer@audit.test", password }, headers });
    expect(ok.status).toBe(200);
    const failed = await call(login.POST, "/api/auth/login", {
      body: { email: "SIGNER@audit.test", password: "wrong guess 1234" },
      headers,
    });
    expect(failed.status).toBe(401);
    const unknown = await call(login.POST, "/api/auth/login", {
      body: { email: "nobody-here@audit.test", password: "wrong guess 1234" },
      headers,
    });
    expect(unknown.status).toBe(401);
    const cookie = ok.headers.get("set-cookie")!.split(";")[0];
    expect((await call(logout.POST, "/api/auth/logout", { method: "POST", headers: { cookie } })).status).toBe(204);

    // The failed attempt is written without the sign-in waiting for it.
    await vi.waitFor(async () => expect(await AuditLog.countDocuments({ action: "auth.signInFailed" })).toBe(1));
    const entries = await entriesOf(
      a,
      `?resourceId=${member._id}&action=auth.signedIn,auth.signInFailed,auth.signedOut`,
    );
    const self = { type: "user", id: member._id, name: "Sig Ner" };
    expect(entries.map((entry) => [entry.action, entry.actor])).toEqual([
      ["auth.signedOut", self],
      ["auth.signInFailed", { type: "anonymous", id: null, name: "signer@audit.test" }],
      ["auth.signedIn", self],
    ]);
    expect(entries[2]).toMatchObject({
      resource: { type: "user", id: member._id },
      changes: [],
      userAgent: "browser/2",
      ip: expect.any(String),
    });
    const stored = JSON.stringify(await AuditLog.find({}).lean());
    expect(stored).not.toContain("wrong guess");
    expect(stored).not.toContain(password);
    // An unknown e-mail is kept by no company.
    expect(stored).not.toContain("nobody-here");
  });

  it("filters by kind, record, actor, action and time, and pages newest first by cursor", async () => {
    const start = new Date().toISOString();
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push((await createUser(b, { email: `page${i}@audit.test` }))._id);
    const end = new Date().toISOString();

    const inWindow = await entriesOf(
      b,
      `?resourceType=user&action=user.created&actorId=${b.adminId}&from=${start}&to=${end}`,
    );
    expect(inWindow.map((entry) => entry.resource.id)).toEqual([...made].reverse());
    expect(
      await entriesOf(b, `?from=${end.replace(/\.\d+Z/, ".999Z").replace(/^(\d+)/, (y) => String(Number(y) + 1))}`),
    ).toEqual([]);
    expect(await entriesOf(b, `?actorId=${a.adminId}`)).toEqual([]);

    const seen: string[] = [];
    let next: string | null = null;
    let pages = 0;
    do {
      const query: string = `?resourceType=user&from=${start}&limit=2${next ? `&cursor=${encodeURIComponent(next)}` : ""}`;
      const response = await log(b, query);
      expect(response.status).toBe(200);
      seen.push(...success(response).data.entries.map((entry) => entry.resource.id));
      next = success(response).data.next;
      if (next) expect(response.headers.get("link")).toContain('rel="next"');
      pages++;
    } while (next);
    expect(pages).toBe(3);
    expect(seen).toEqual([...made].reverse());

    const first = await log(b, `?resourceType=user&limit=2`);
    const otherFilter = await log(
      b,
      `?resourceType=survey&limit=2&cursor=${encodeURIComponent(success(first).data.next!)}`,
    );
    expect(otherFilter.status).toBe(400);
    expect(failure(otherFilter).code).toBe("invalid_request");
  });

  it("shows a company nothing of another's", async () => {
    const ofB = await createUser(b, { email: "secret-of-b@audit.test" });
    expect(await entriesOf(a, `?resourceId=${ofB._id}`)).toEqual([]);
    const all = JSON.stringify(await entriesOf(a, "?limit=200"));
    expect(all).not.toContain("secret-of-b");
    expect(all).not.toContain(b.adminId);
    const cursorOfB = success(await log(b, "?limit=1")).data.next!;
    const replayed = await log(a, `?limit=1&cursor=${encodeURIComponent(cursorOfB)}`);
    expect(replayed.status).toBe(400);
  });

  it("is for admins only", async () => {
    expect((await call(auditLog.GET, "/v2/audit-log")).status).toBe(401);
    const withoutHeader = await call(auditLog.GET, "/v2/audit-log", { token: a.adminToken });
    expect(withoutHeader.status).toBe(403);
    expect(failure(withoutHeader).code).toBe("admin_required");
    const member = await call(auditLog.GET, "/v2/audit-log", { token: a.memberToken, admin: true });
    expect(member.status).toBe(403);
    expect(failure(member).code).toBe("forbidden");
  });

  it.each([
    ["resourceId=nope", "resourceId"],
    ["actorId=123", "actorId"],
    ["resourceType=planet", "resourceType"],
    ["action=user.exploded", "action"],
    ["from=yesterday", "from"],
    ["to=2026-13-40T00:00:00Z", "to"],
    ["from=2026-02-01T00:00:00.000Z&to=2026-01-01T00:00:00.000Z", "from"],
    ["limit=0", "limit"],
    ["limit=201", "limit"],
    ["cursor=abc", "cursor"],
    ["page=2&cursor=abc.def", "cursor"],
    ["resourceId=aaaaaaaaaaaaaaaaaaaaaaaa&resourceId=bbbbbbbbbbbbbbbbbbbbbbbb", "resourceId"],
  ])("refuses %s with 400 naming %s", async (query, path) => {
    const response = await log(a, `?${query}`);
    expect(response.status).toBe(400);
    expect(failure(response).code).toBe("invalid_request");
    expect(failure(response).details?.map((detail) => detail.path.split(".")[0])).toContain(path);
  });

  it("expires entries through a TTL index that follows AUDIT_RETENTION_DAYS", async () => {
    expect((await retentionIndex())!).toMatchObject({ key: { createdAt: 1 }, expireAfterSeconds: 365 * 86_400 });
    process.env.AUDIT_RETENTION_DAYS = "30";
    try {
      expect(await syncRetention()).toBe(30 * 86_400);
      expect((await retentionIndex())!.expireAfterSeconds).toBe(30 * 86_400);
    } finally {
      delete process.env.AUDIT_RETENTION_DAYS;
    }
    await syncRetention();
    expect((await retentionIndex())!.expireAfterSeconds).toBe(365 * 86_400);
  });
});
