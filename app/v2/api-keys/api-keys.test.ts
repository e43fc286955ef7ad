import { hashToken } from "@/lib/kernel/ids";
import { ApiKey } from "@/lib/resources/api-keys/repository";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, createTenant, failure, success, type Tenant } from "@/lib/tools/testing/http";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import * as surveys from "../surveys/route";
import * as user from "../users/[id]/route";
import * as me from "../users/me/route";
import * as users from "../users/route";
import * as apiKey from "./[id]/route";
import * as apiKeys from "./route";

describe("API keys", () => {
  const db = useTestDatabase();
  let a: Tenant;
  let b: Tenant;

  beforeAll(async () => {
    a = await createTenant("Keys A");
    b = await createTenant("Keys B");
  });
  afterEach(() => vi.useRealTimers());

  const createKey = (tenant: Tenant, body: Record<string, unknown>) =>
    call(apiKeys.POST, "/v2/api-keys", { token: tenant.adminToken, admin: true, body });
  const withKey = (key: string, admin = false) => ({ token: key, ...(admin ? { admin: true } : {}) });

  it("creates a key shown once, stored only as its hash, listed with its prefix", async () => {
    const created = await createKey(a, {
      name: "Payroll sync",
      scopes: ["users:write", "users:read"],
      expiresAt: "2099-01-01T00:00:00Z",
    });
    expect(created.status).toBe(201);
    const { key, ...record } = success(created);
    expect(key).toMatch(/^usk_[A-Za-z0-9_-]{43}$/);
    expect(record).toEqual({
      _id: expect.any(String),
      name: "Payroll sync",
      scopes: ["users:read", "users:write"],
      prefix: key!.slice(0, 12),
      createdAt: expect.any(String),
      expiresAt: "2099-01-01T00:00:00.000Z",
      lastUsedAt: null,
      createdBy: { _id: a.adminId, type: "user", name: expect.any(String), email: expect.stringMatching(/^admin@/) },
    });
    expect(created.headers.get("location")).toBe(`/v2/api-keys/${record._id}`);

    const listed = await call(apiKeys.GET, "/v2/api-keys?count=true", { token: a.adminToken, admin: true });
    expect(listed.status).toBe(200);
    expect(success(listed).data.apiKeys).toContainEqual(record);
    expect(JSON.stringify(listed.body)).not.toContain(key);

    // At rest: the SHA-256 of the key, nowhere the key itself.
    const stored = await db.mongoose.connection.db!.collection("apiKeys").findOne({ name: "Payroll sync" });
    expect(stored!.keyHash).toBe(hashToken(key!));
    expect(JSON.stringify(stored)).not.toContain(key!.slice(12));
  });

  it("never keeps the key at rest for a replay: a repeated Idempotency-Key answers the record without it", async () => {
    const send = () =>
      call(apiKeys.POST, "/v2/api-keys", {
        token: a.adminToken,
        admin: true,
        body: { name: "Once", scopes: ["users:read"] },
        headers: { "Idempotency-Key": "key-once" },
      });
    const first = await send();
    expect(first.status).toBe(201);
    const again = await send();
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    const { key, ...record } = success(first);
    expect(again.body).toEqual(record);
    const stored = await db.mongoose.connection.db!.collection("idempotencyKeys").find({}).toArray();
    expect(stored.length).toBeGreaterThan(0);
    expect(JSON.stringify(stored)).not.toContain(key!.slice(4));
  });

  it("acts for its company only: a key of one company sees nothing of another", async () => {
    const key = success(await createKey(a, { name: "Reader", scopes: ["users:read"] })).key!;
    const listed = await call(users.GET, "/v2/users?count=true&isActive=all", withKey(key));
    expect(listed.status).toBe(200);
    expect(success(listed).data.counter).toBe(2);
    expect(
      success(listed)
        .data.users.map((u: { _id: string }) => u._id)
        .sort(),
    ).toEqual([a.adminId, a.memberId].sort());
    const foreign = await call(user.GET, `/v2/users/${b.adminId}`, { ...withKey(key), params: { id: b.adminId } });
    expect(foreign.status).toBe(404);
    // A key belongs to no user.
    expect((await call(me.GET, "/v2/users/me", withKey(key))).status).toBe(404);

    const keysOfB = await call(apiKeys.GET, "/v2/api-keys", { token: b.adminToken, admin: true });
    expect(success(keysOfB).data.apiKeys).toEqual([]);
    const ofA = success(await call(apiKeys.GET, "/v2/api-keys", { token: a.adminToken, admin: true })).data.apiKeys[0]
      ._id;
    const revokeFromB = await call(apiKey.DELETE, `/v2/api-keys/${ofA}`, {
      method: "DELETE",
      token: b.adminToken,
      admin: true,
      params: { id: ofA },
    });
    expect(revokeFromB.status).toBe(404);
  });

  it("refuses a request outside the key's scopes with 403 insufficient_scope naming the scope", async () => {
    const key = success(await createKey(a, { name: "Narrow", scopes: ["users:read"] })).key!;
    const refused = await call(surveys.GET, "/v2/surveys", withKey(key, true));
    expect(refused.status).toBe(403);
    expect(failure(refused).code).toBe("insufficient_scope");
    expect(failure(refused).message).toContain("surveys:read");
    expect(failure(refused).details).toEqual([{ path: "scope", message: "needs surveys:read" }]);
    expect(refused.headers.get("www-authenticate")).toBe('Bearer error="insufficient_scope", scope="surveys:read"');

    const write = await call(users.POST, "/v2/users", { ...withKey(key, true), body: { email: "nope@keys-a.io" } });
    expect(write.status).toBe(403);
    expect(failure(write).message).toContain("users:write");
  });

  it("honours Admin: true for a key whose scopes cover the request, and requires the header as for users", async () => {
    const key = success(await createKey(a, { name: "Writer", scopes: ["users:write"] })).key!;
    const withoutHeader = await call(users.POST, "/v2/users", { ...withKey(key), body: { email: "by.key@keys-a.io" } });
    expect(withoutHeader.status).toBe(403);
    expect(failure(withoutHeader).code).toBe("admin_required");
    const made = await call(users.POST, "/v2/users", {
      ...withKey(key, true),
      body: { email: "by.key@keys-a.io", accessRoles: [a.memberRoleId] },
    });
    expect(made.status).toBe(201);
    expect(success(made).companies.map((entry: { companyId: string }) => entry.companyId)).toEqual([a.companyId]);
  });

  it("lets only admins manage keys, and a key mint only keys within its own scopes", async () => {
    const byMember = await call(apiKeys.POST, "/v2/api-keys", {
      token: a.memberToken,
      admin: true,
      body: { name: "x", scopes: ["users:read"] },
    });
    expect(byMember.status).toBe(403);
    expect(failure(byMember).code).toBe("forbidden");

    const manager = success(await createKey(a, { name: "Manager", scopes: ["api-keys:write", "users:read"] })).key!;
    const narrower = await call(apiKeys.POST, "/v2/api-keys", {
      ...withKey(manager, true),
      body: { name: "Child", scopes: ["users:read"] },
    });
    expect(narrower.status).toBe(201);
    const wider = await call(apiKeys.POST, "/v2/api-keys", {
      ...withKey(manager, true),
      body: { name: "Wider", scopes: ["users:read", "surveys:write"] },
    });
    expect(wider.status).toBe(403);
    expect(failure(wider).code).toBe("insufficient_scope");
    expect(failure(wider).message).toContain("surveys:write");
  });

  it("answers 400 for a bad body, naming each field", async () => {
    const bad = await createKey(a, { name: "", scopes: ["users:read", "everything"], expiresAt: "tomorrow" });
    expect(bad.status).toBe(400);
    expect(
      failure(bad)
        .details?.map((detail: { path: string }) => detail.path)
        .sort(),
    ).toEqual(["expiresAt", "name", "scopes.1"]);
    expect(failure(await createKey(a, { name: "None", scopes: [] })).details).toEqual([
      { path: "scopes", message: "must name at least one scope" },
    ]);
    const past = await createKey(a, { name: "Past", scopes: ["users:read"], expiresAt: "2020-01-01T00:00:00Z" });
    expect(past.status).toBe(400);
    expect(failure(past).details).toEqual([{ path: "expiresAt", message: "must be in the future" }]);
  });

  it("refuses a forged, truncated or altered key with 401", async () => {
    const key = success(await createKey(a, { name: "Real", scopes: ["users:read"] })).key as string;
    for (const forged of [
      `usk_${"A".repeat(43)}`,
      key.slice(0, -1),
      `${key.slice(0, -1)}${key.endsWith("A") ? "B" : "A"}`,
      "usk_",
    ]) {
      const answer = await call(users.GET, "/v2/users", withKey(forged));
      expect(answer.status, forged).toBe(401);
      expect(failure(answer).code).toBe("unauthorized");
    }
  });

  it("stops a revoked key at once in this process and, revoked by another, within 5 seconds", async () => {
    const key = success(await createKey(a, { name: "Revoked here", scopes: ["users:read"] })).key!;
    const id =
      (await call(users.GET, "/v2/users", withKey(key))).status === 200 &&
      (await ApiKey.findOne({ keyHash: hashToken(key) }).lean())!._id.toHexString();
    const revoked = await call(apiKey.DELETE, `/v2/api-keys/${id}`, {
      method: "DELETE",
      token: a.adminToken,
      admin: true,
      params: { id: id as string },
    });
    expect(revoked.status).toBe(204);
    expect((await call(users.GET, "/v2/users", withKey(key))).status).toBe(401);
    expect(
      (
        await call(apiKey.DELETE, `/v2/api-keys/${id}`, {
          method: "DELETE",
          token: a.adminToken,
          admin: true,
          params: { id: id as string },
        })
      ).status,
    ).toBe(404);

    const other = success(await createKey(a, { name: "Revoked elsewhere", scopes: ["users:read"] })).key!;
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    expect((await call(users.GET, "/v2/users", withKey(other))).status).toBe(200);
    // Another server process revokes it: this one still holds it in its cache, for at most 5 seconds.
    await ApiKey.updateOne({ keyHash: hashToken(other) }, { $set: { revokedAt: new Date() } });
    vi.setSystemTime(Date.now() + 5_000);
    expect((await call(users.GET, "/v2/users", withKey(other))).status).toBe(401);
  });

  it("stops an expired key", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    const expiresAt = new Date(Date.now() + 60_000).toISOString();
    const key = success(await createKey(a, { name: "Short", scopes: ["users:read"], expiresAt })).key!;
    expect((await call(users.GET, "/v2/users", withKey(key))).status).toBe(200);
    vi.setSystemTime(Date.now() + 60_000);
    const expired = await call(users.GET, "/v2/users", withKey(key));
    expect(expired.status).toBe(401);
    expect(failure(expired).message).toContain("expired");
  });

  it("records lastUsedAt at most once a minute, not on every request", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    const created = success(await createKey(a, { name: "Used", scopes: ["users:read"] }));
    const lastUsed = async () => {
      // The write is not awaited by the request: wait until it lands.
      await vi.waitFor(async () => expect((await ApiKey.findById(created._id).lean())!.lastUsedAt).not.toBeNull());
      return (await ApiKey.findById(created._id).lean())!.lastUsedAt!.getTime();
    };
    await call(users.GET, "/v2/users", withKey(created.key!));
    const first = await lastUsed();
    vi.setSystemTime(Date.now() + 30_000);
    await call(users.GET, "/v2/users", withKey(created.key!));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await lastUsed()).toBe(first);
    vi.setSystemTime(Date.now() + 31_000);
    const at = Date.now();
    await call(users.GET, "/v2/users", withKey(created.key!));
    await vi.waitFor(async () => expect(await lastUsed()).toBe(at));
    const listed = await call(apiKeys.GET, "/v2/api-keys", { token: a.adminToken, admin: true });
    expect(success(listed).data.apiKeys.find((k: { _id: string }) => k._id === created._id)!.lastUsedAt).toBe(
      new Date(at).toISOString(),
    );
  });
});
