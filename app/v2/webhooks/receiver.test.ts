/**
 * The built-in test receiver (docs/api.md#test-receiver): one URL per company under PUBLIC_URL that a
 * webhook may point to with no WEBHOOK_ALLOWED_HOSTS, keeping what it receives with its signature
 * checked against the secrets of the company's webhooks that point to it.
 */
import { loadConfig } from "@/lib/base/config";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, createTenant, failure, success, type Tenant } from "@/lib/tools/testing/http";
import { Webhook as Signer } from "standardwebhooks";
import { beforeAll, describe, expect, it } from "vitest";
import * as inbox from "../../api/webhook-receiver/[key]/route";
import * as apiKeys from "../api-keys/route";
import * as rotate from "./[id]/rotate-secret/route";
import * as receiver from "./receiver/route";
import * as webhooks from "./route";

delete process.env.WEBHOOK_ALLOWED_HOSTS;

describe("the test receiver", () => {
  useTestDatabase();
  let a: Tenant;
  let b: Tenant;

  beforeAll(async () => {
    a = await createTenant("Receiver A");
    b = await createTenant("Receiver B");
  });

  const as = (tenant: Tenant, extra: Record<string, unknown> = {}) => ({
    token: tenant.adminToken,
    admin: true,
    ...extra,
  });
  const read = async (tenant: Tenant) => success(await call(receiver.GET, "/v2/webhooks/receiver", as(tenant)));
  const keyOf = (url: string) => url.slice(url.lastIndexOf("/") + 1);
  /** A delivery as the product signs it, to the receiver of `url`. */
  const deliver = (url: string, body: string, headers: Record<string, string>) =>
    call(inbox.POST, new URL(url).pathname, {
      method: "POST",
      rawBody: body,
      headers: { "content-type": "application/json", ...headers },
      params: { key: keyOf(url) },
    });
  const signed = (secret: string, body: string, id = "evt_1") => {
    const at = new Date();
    return {
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
      "webhook-signature": new Signer(secret).sign(id, at, body),
    };
  };

  it("has one URL per company under PUBLIC_URL, the same at every read, and starts empty", async () => {
    const first = await read(a);
    expect(first.url).toMatch(new RegExp(`^${loadConfig().publicUrl}/api/webhook-receiver/[A-Za-z0-9_-]{32}$`));
    expect(first.received).toEqual([]);
    expect((await read(a)).url).toBe(first.url);
    expect((await read(b)).url).not.toBe(first.url);
  });

  it("may be a webhook's URL with no WEBHOOK_ALLOWED_HOSTS, where another path of the same host may not", async () => {
    const { url } = await read(a);
    expect((await call(webhooks.POST, "/v2/webhooks", as(a, { body: { url, events: ["user.*"] } }))).status).toBe(201);
    const other = await call(
      webhooks.POST,
      "/v2/webhooks",
      as(a, { body: { url: `${loadConfig().publicUrl}/api/health`, events: ["user.*"] } }),
    );
    expect(other.status).toBe(400);
    expect(failure(other).details![0].message).toContain("WEBHOOK_ALLOWED_HOSTS");
    expect(failure(other).details![0].message).toContain("test receiver");
  });

  it("keeps each request with its headers and body, and says whether the signature matches a webhook's current secret", async () => {
    const tenant = await createTenant("Receiver signatures");
    const { url } = await read(tenant);
    const made = success(await call(webhooks.POST, "/v2/webhooks", as(tenant, { body: { url, events: ["user.*"] } })));
    const body = JSON.stringify({ type: "webhook.test", data: { hello: "world" } });

    expect(
      (
        await deliver(url, body, {
          ...signed(made.secret!, body),
          authorization: "Basic dXNlcjpwYXNz",
          "x-socket-address-stamp": "secret-of-the-process",
          "x-forwarded-for": "10.0.0.1",
        })
      ).status,
    ).toBe(204);
    expect((await deliver(url, body, signed(`whsec_${Buffer.alloc(24, 7).toString("base64")}`, body))).status).toBe(
      204,
    );
    expect((await deliver(url, "not json", {})).status).toBe(204);
    const rotated = success(
      await call(
        rotate.POST,
        `/v2/webhooks/${made._id}/rotate-secret`,
        as(tenant, { method: "POST", params: { id: made._id } }),
      ),
    );
    expect((await deliver(url, body, signed(made.secret!, body))).status).toBe(204);
    expect((await deliver(url, body, signed(rotated.secret!, body))).status).toBe(204);

    const [afterRotation, oldSecret, unsigned, wrong, valid] = (await read(tenant)).received;
    expect(valid).toMatchObject({
      signature: "valid",
      webhook: made._id,
      eventType: "webhook.test",
      body,
      truncated: false,
    });
    expect(valid.headers).toMatchObject({
      "webhook-id": "evt_1",
      authorization: "Basic •••",
      "content-type": "application/json",
    });
    // Only what a sender sets: never the server's own (its socket-address stamp is a process secret).
    expect(Object.keys(valid.headers).filter((name) => name.startsWith("x-"))).toEqual([]);
    expect(wrong).toMatchObject({ signature: "invalid", webhook: null });
    expect(wrong.signatureNote).toContain(made._id);
    expect(unsigned).toMatchObject({ signature: "unsigned", eventType: null, body: "not json" });
    expect(oldSecret.signature).toBe("invalid");
    expect(afterRotation).toMatchObject({ signature: "valid", webhook: made._id });
  });

  it("keeps the latest 50, cuts a body past 64 KiB, refuses one past 1 MiB (413), and answers 404 to a key of no company and 400 to a malformed one", async () => {
    const tenant = await createTenant("Receiver bounds");
    const { url } = await read(tenant);
    for (let i = 0; i < 52; i++) expect((await deliver(url, JSON.stringify({ type: `n.${i}` }), {})).status).toBe(204);
    const kept = (await read(tenant)).received;
    expect(kept).toHaveLength(50);
    expect(kept[0].eventType).toBe("n.51");
    expect(kept[49].eventType).toBe("n.2");

    expect((await deliver(url, "x".repeat(100 * 1024), {})).status).toBe(204);
    const [big] = (await read(tenant)).received;
    expect(big.truncated).toBe(true);
    expect(big.body).toHaveLength(64 * 1024);
    expect((await deliver(url, "x".repeat(1024 * 1024 + 1), {})).status).toBe(413);

    const unknown = `${loadConfig().publicUrl}/api/webhook-receiver/${"A".repeat(32)}`;
    expect((await deliver(unknown, "{}", {})).status).toBe(404);
    const malformed = await call(inbox.POST, "/api/webhook-receiver/..%2F", {
      method: "POST",
      rawBody: "{}",
      params: { key: "../" },
    });
    expect(malformed.status).toBe(400);
  });

  it("is emptied by DELETE; each company sees only its own; it needs an admin, and for an API key the scope webhooks:write", async () => {
    const tenant = await createTenant("Receiver scope");
    const { url } = await read(tenant);
    expect((await deliver(url, "{}", {})).status).toBe(204);
    expect((await read(b)).received).toEqual([]);
    expect((await read(tenant)).received).toHaveLength(1);
    expect((await call(receiver.DELETE, "/v2/webhooks/receiver", as(tenant, { method: "DELETE" }))).status).toBe(204);
    expect((await read(tenant)).received).toEqual([]);
    expect((await read(tenant)).url).toBe(url);

    expect(failure(await call(receiver.GET, "/v2/webhooks/receiver", { token: tenant.adminToken })).code).toBe(
      "admin_required",
    );
    expect((await call(receiver.GET, "/v2/webhooks/receiver", { token: tenant.memberToken, admin: true })).status).toBe(
      403,
    );
    const narrow = success(
      await call(apiKeys.POST, "/v2/api-keys", as(tenant, { body: { name: "Narrow", scopes: ["users:read"] } })),
    ).key;
    const refused = await call(receiver.GET, "/v2/webhooks/receiver", { token: narrow, admin: true });
    expect(failure(refused).code).toBe("insufficient_scope");
    expect(
      (await call(receiver.DELETE, "/v2/webhooks/receiver", { token: narrow, admin: true, method: "DELETE" })).status,
    ).toBe(403);
    const key = success(
      await call(apiKeys.POST, "/v2/api-keys", as(tenant, { body: { name: "Hooks", scopes: ["webhooks:write"] } })),
    ).key;
    expect((await call(receiver.GET, "/v2/webhooks/receiver", { token: key, admin: true })).status).toBe(200);
    expect((await call(receiver.POST, "/v2/webhooks/receiver", as(tenant, { method: "POST", body: {} }))).status).toBe(
      405,
    );
  });
});
