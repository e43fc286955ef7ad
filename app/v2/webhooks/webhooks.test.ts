import { oid } from "@/lib/kernel/ids";
import { Event } from "@/lib/resources/events/repository";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, createTenant, failure, success, type Tenant } from "@/lib/tools/testing/http";
import { beforeAll, describe, expect, it } from "vitest";
import * as apiKeys from "../api-keys/route";
import * as events from "../events/route";
import * as retry from "./[id]/deliveries/[deliveryId]/retry/route";
import * as deliveries from "./[id]/deliveries/route";
import * as rotate from "./[id]/rotate-secret/route";
import * as webhook from "./[id]/route";
import * as test from "./[id]/test/route";
import * as webhooks from "./route";

process.env.WEBHOOK_ALLOWED_HOSTS = "127.0.0.1, allowed.invalid";

describe("webhooks", () => {
  const db = useTestDatabase();
  let a: Tenant;
  let b: Tenant;

  beforeAll(async () => {
    a = await createTenant("Hooks A");
    b = await createTenant("Hooks B");
  });

  const as = (tenant: Tenant, extra: Record<string, unknown> = {}) => ({
    token: tenant.adminToken,
    admin: true,
    ...extra,
  });
  const create = (tenant: Tenant, body: Record<string, unknown>) =>
    call(webhooks.POST, "/v2/webhooks", as(tenant, { body }));
  const byId = (id: string) => ({ params: { id } });

  it("creates a webhook whose secret is shown on create and rotate only, and reads, lists, changes and deletes it", async () => {
    const created = await create(a, {
      url: "http://127.0.0.1:9/hook",
      events: ["user.updated", "survey.*", "user.updated"],
      description: "Sync",
    });
    expect(created.status).toBe(201);
    const { secret, ...record } = success(created);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(record).toEqual({
      _id: expect.any(String),
      url: "http://127.0.0.1:9/hook",
      events: ["user.updated", "survey.*"],
      description: "Sync",
      isActive: true,
      createdAt: expect.any(String),
      modifiedAt: expect.any(String),
    });
    expect(created.headers.get("location")).toBe(`/v2/webhooks/${record._id}`);

    const read = await call(webhook.GET, `/v2/webhooks/${record._id}`, as(a, byId(record._id)));
    expect(read.status).toBe(200);
    expect(read.body).toEqual(record);
    const listed = await call(webhooks.GET, "/v2/webhooks?count=true", as(a));
    expect(success(listed).data).toMatchObject({ webhooks: [record], counter: 1, next: null });
    expect(JSON.stringify([read.body, listed.body])).not.toContain(secret!.slice(6));

    const patched = await call(
      webhook.PATCH,
      `/v2/webhooks/${record._id}`,
      as(a, { method: "PATCH", ...byId(record._id), body: { events: ["user.*"], isActive: false, description: null } }),
    );
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ events: ["user.*"], isActive: false, description: null });
    expect(patched.body).not.toHaveProperty("secret");

    const rotated = await call(
      rotate.POST,
      `/v2/webhooks/${record._id}/rotate-secret`,
      as(a, { method: "POST", ...byId(record._id) }),
    );
    expect(rotated.status).toBe(200);
    expect(success(rotated).secret).toMatch(/^whsec_/);
    expect(success(rotated).secret).not.toBe(secret);

    // Each change wrote its event, naming the admin who made it.
    const events = await Event.find({ "resource.id": record._id }).sort({ seq: 1 }).lean();
    expect(events.map((event) => [event.type, event.changes])).toEqual([
      ["webhook.created", ["_id", "url", "events", "description", "isActive", "createdAt"]],
      ["webhook.updated", ["events", "description", "isActive"]],
      ["webhook.updated", ["secret"]],
    ]);
    expect(events[0].actor).toEqual({ type: "user", id: a.adminId });
    // A PATCH that changes nothing writes none.
    await call(
      webhook.PATCH,
      `/v2/webhooks/${record._id}`,
      as(a, { method: "PATCH", ...byId(record._id), body: { isActive: false } }),
    );
    expect(await Event.countDocuments({ "resource.id": record._id })).toBe(3);

    const removed = await call(
      webhook.DELETE,
      `/v2/webhooks/${record._id}`,
      as(a, { method: "DELETE", ...byId(record._id) }),
    );
    expect(removed.status).toBe(204);
    expect((await call(webhook.GET, `/v2/webhooks/${record._id}`, as(a, byId(record._id)))).status).toBe(404);
    expect(await Event.countDocuments({ "resource.id": record._id, type: "webhook.deleted" })).toBe(1);

    // At rest the secret is kept, to sign with; the API never shows it again.
    const again = await create(a, { url: "http://127.0.0.1:9/kept", events: ["user.created"] });
    const stored = await db.mongoose.connection.db!.collection("webhooks").findOne({ url: "http://127.0.0.1:9/kept" });
    expect(stored!.secret).toBe(success(again).secret);
  });

  it("masks the URL's userinfo, query values and fragment in every answer and event, keeps it whole at rest, and takes the masked URL sent back as unchanged", async () => {
    const whole = "http://hook-user:p%40ss@127.0.0.1:9/in/x?token=s3cret&a=1&bare#frag";
    const masked = "http://•••@127.0.0.1:9/in/x?token=•••&a=•••&•••#•••";
    const created = await create(a, { url: whole, events: ["user.*"] });
    expect(created.status).toBe(201);
    const id = success(created)._id as string;
    expect(success(created).url).toBe(masked);
    expect(success(await call(webhook.GET, `/v2/webhooks/${id}`, as(a, byId(id)))).url).toBe(masked);
    const listed = success(await call(webhooks.GET, "/v2/webhooks?limit=100", as(a))).data.webhooks;
    expect(listed.find((hook: { _id: string }) => hook._id === id)!.url).toBe(masked);
    const stored = () => db.mongoose.connection.db!.collection("webhooks").findOne({ _id: oid(id) });
    expect((await stored())!.url).toBe(whole);
    // A URL with nothing to hide is shown as written.
    expect(success(await create(a, { url: "http://127.0.0.1:9/plain/path", events: ["user.*"] })).url).toBe(
      "http://127.0.0.1:9/plain/path",
    );

    const patch = (body: Record<string, unknown>) =>
      call(webhook.PATCH, `/v2/webhooks/${id}`, as(a, { method: "PATCH", ...byId(id), body }));
    // The masked URL sent back (an edit form that kept it) changes nothing of the URL.
    const kept = await patch({ url: masked, description: "Kept" });
    expect(kept.status).toBe(200);
    expect(success(kept)).toMatchObject({ url: masked, description: "Kept" });
    expect((await stored())!.url).toBe(whole);
    expect((await Event.findOne({ "resource.id": id, type: "webhook.updated" }).lean())!.changes).toEqual([
      "description",
    ]);
    // So does the same masked URL as a URL parser writes it, its • percent-encoded.
    expect(success(await patch({ url: new URL(masked).href })).url).toBe(masked);
    expect((await stored())!.url).toBe(whole);
    // Any other URL holding the mask is refused: the mask must never be stored as the URL.
    for (const url of [
      "http://•••@127.0.0.1:9/in/y?token=•••&a=•••",
      "http://%E2%80%A2%E2%80%A2%E2%80%A2@127.0.0.1:9/in/x?token=%E2%80%A2%E2%80%A2%E2%80%A2",
    ]) {
      const refused = await patch({ url });
      expect(refused.status, url).toBe(400);
      expect(failure(refused).details).toEqual([
        { path: "url", message: expect.stringContaining("send the whole URL") },
      ]);
    }
    const refusedCreate = await create(a, { url: masked, events: ["user.*"] });
    expect(refusedCreate.status).toBe(400);
    expect(failure(refusedCreate).details).toEqual([
      { path: "url", message: expect.stringContaining("send the whole URL") },
    ]);
    expect((await stored())!.url).toBe(whole);

    // A new token only: the masked URL reads the same, yet the change is an event naming url.
    expect((await patch({ url: whole.replace("s3cret", "n3w-s3cret") })).status).toBe(200);
    expect((await stored())!.url).toBe(whole.replace("s3cret", "n3w-s3cret"));
    const changes = (await Event.find({ "resource.id": id, type: "webhook.updated" }).sort({ seq: 1 }).lean()).map(
      (event) => event.changes,
    );
    expect(changes).toEqual([["description"], ["url"]]);

    // The events' payloads name fields, never values: no secret of the URL reaches them.
    const feed = success(await call(events.GET, "/v2/events?limit=100&type=webhook.created,webhook.updated", as(a)))
      .data.events;
    expect(feed.filter((event: { resource: { id: string } }) => event.resource.id === id)).toHaveLength(3);
    expect(JSON.stringify(feed)).not.toMatch(/s3cret|hook-user|p%40ss|frag/);
  });

  it("shows nothing of one company to another: read, change, delete, list, deliveries and retry are 404 or empty", async () => {
    const id = success(await create(a, { url: "http://127.0.0.1:9/a", events: ["user.*"] }))._id as string;
    const queued = await call(test.POST, `/v2/webhooks/${id}/test`, as(a, { method: "POST", ...byId(id) }));
    expect(queued.status).toBe(200);
    const deliveryId = success(queued)._id as string;

    expect((await call(webhook.GET, `/v2/webhooks/${id}`, as(b, byId(id)))).status).toBe(404);
    expect(
      (
        await call(
          webhook.PATCH,
          `/v2/webhooks/${id}`,
          as(b, { method: "PATCH", ...byId(id), body: { isActive: false } }),
        )
      ).status,
    ).toBe(404);
    expect((await call(webhook.DELETE, `/v2/webhooks/${id}`, as(b, { method: "DELETE", ...byId(id) }))).status).toBe(
      404,
    );
    expect(
      (await call(rotate.POST, `/v2/webhooks/${id}/rotate-secret`, as(b, { method: "POST", ...byId(id) }))).status,
    ).toBe(404);
    expect((await call(test.POST, `/v2/webhooks/${id}/test`, as(b, { method: "POST", ...byId(id) }))).status).toBe(404);
    expect((await call(deliveries.GET, `/v2/webhooks/${id}/deliveries`, as(b, byId(id)))).status).toBe(404);
    const foreignRetry = await call(
      retry.POST,
      `/v2/webhooks/${id}/deliveries/${deliveryId}/retry`,
      as(b, { method: "POST", params: { id, deliveryId } }),
    );
    expect(foreignRetry.status).toBe(404);
    const listed = await call(webhooks.GET, "/v2/webhooks", as(b));
    expect(success(listed).data.webhooks.map((hook: { _id: string }) => hook._id)).not.toContain(id);

    // A delivery of another webhook of the same company is not this webhook's either.
    const other = success(await create(a, { url: "http://127.0.0.1:9/other", events: ["user.*"] }))._id as string;
    expect(
      (
        await call(
          retry.POST,
          `/v2/webhooks/${other}/deliveries/${deliveryId}/retry`,
          as(a, { method: "POST", params: { id: other, deliveryId } }),
        )
      ).status,
    ).toBe(404);
  });

  it("lists deliveries newest first, by page and by cursor, and queues a test and a retry", async () => {
    const id = success(await create(a, { url: "http://127.0.0.1:9/list", events: ["user.*"] }))._id as string;
    const first = await call(test.POST, `/v2/webhooks/${id}/test`, as(a, { method: "POST", ...byId(id) }));
    expect(first.body).toEqual({
      _id: expect.any(String),
      eventId: expect.any(String),
      attempt: 1,
      status: "pending",
      responseStatus: null,
      durationMs: null,
      error: null,
      nextAttemptAt: expect.any(String),
      createdAt: expect.any(String),
    });
    const again = await call(
      retry.POST,
      `/v2/webhooks/${id}/deliveries/${success(first)._id}/retry`,
      as(a, { method: "POST", params: { id, deliveryId: success(first)._id } }),
    );
    expect(again.status).toBe(200);
    expect(success(again).eventId).toBe(success(first).eventId);
    await call(test.POST, `/v2/webhooks/${id}/test`, as(a, { method: "POST", ...byId(id) }));

    const page = await call(deliveries.GET, `/v2/webhooks/${id}/deliveries?limit=2&count=true`, as(a, byId(id)));
    expect(page.status).toBe(200);
    expect(success(page).data.counter).toBe(3);
    expect(success(page).data.deliveries).toHaveLength(2);
    expect(success(page).data.deliveries[1]._id).toBe(success(again)._id);
    const next = await call(
      deliveries.GET,
      `/v2/webhooks/${id}/deliveries?limit=2&cursor=${success(page).data.next}`,
      as(a, byId(id)),
    );
    expect(success(next).data.deliveries.map((d: { _id: string }) => d._id)).toEqual([success(first)._id]);
    expect(success(next).data.next).toBeNull();
    // A cursor of another webhook's list is refused.
    const otherId = success(await create(a, { url: "http://127.0.0.1:9/list2", events: ["user.*"] }))._id as string;
    const foreignCursor = await call(
      deliveries.GET,
      `/v2/webhooks/${otherId}/deliveries?cursor=${success(page).data.next}`,
      as(a, byId(otherId)),
    );
    expect(foreignCursor.status).toBe(400);
  });

  it("refuses bad input with 400, naming the field, never a 500", async () => {
    const refused = async (body: Record<string, unknown>, path: string) => {
      const answer = await create(a, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(failure(answer).code).toBe("invalid_request");
      expect(failure(answer).details?.map((detail: { path: string }) => detail.path)).toContain(path);
      return failure(answer).details;
    };
    await refused({ url: "ftp://example.com/x", events: ["user.created"] }, "url");
    await refused({ url: "not a url", events: ["user.created"] }, "url");
    await refused({ url: "file:///etc/passwd", events: ["user.created"] }, "url");
    await refused({ url: "http://127.0.0.2/", events: ["user.created"] }, "url");
    await refused({ url: "http://localhost:3000/", events: ["user.created"] }, "url");
    await refused({ url: "http://10.1.2.3/", events: ["user.created"] }, "url");
    await refused({ url: "http://169.254.169.254/latest/meta-data", events: ["user.created"] }, "url");
    await refused({ url: "http://0.0.0.0/", events: ["user.created"] }, "url");
    await refused({ url: "http://[::1]/", events: ["user.created"] }, "url");
    await refused({ url: "http://[::ffff:127.0.0.1]/", events: ["user.created"] }, "url");
    await refused({ url: "http://[fe80::1]/", events: ["user.created"] }, "url");
    await refused({ url: "http://100.64.0.1/", events: ["user.created"] }, "url");
    await refused({ url: "http://2130706434/", events: ["user.created"] }, "url");
    await refused({ url: "http://192.168.1.1/", events: ["user.created"] }, "url");
    // IPv6 forms that carry an IPv4 address: SIIT, local-use NAT64, Teredo, 6to4.
    await refused({ url: "http://[::ffff:0:a00:1]/", events: ["user.created"] }, "url");
    await refused({ url: "http://[64:ff9b:1::a00:1]/", events: ["user.created"] }, "url");
    await refused({ url: "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", events: ["user.created"] }, "url");
    await refused({ url: "http://[2002:c0a8:101::1]/", events: ["user.created"] }, "url");
    // The refusal of an inside address says which setting lets it through.
    expect((await refused({ url: "http://10.1.2.3/", events: ["user.created"] }, "url"))![0].message).toMatch(
      /10\.1\.2\.3 is private.*WEBHOOK_ALLOWED_HOSTS/,
    );
    // Port 0, even on a public address or a host WEBHOOK_ALLOWED_HOSTS lists.
    expect((await refused({ url: "https://93.184.215.14:0/hook", events: ["user.created"] }, "url"))![0].message).toBe(
      "must not use port 0",
    );
    await refused({ url: "http://127.0.0.1:0/hook", events: ["user.created"] }, "url");
    await refused({ url: "https://127.0.0.1/", events: ["user.nope"] }, "events.0");
    await refused({ url: "https://127.0.0.1/", events: ["*"] }, "events.0");
    await refused({ url: "https://127.0.0.1/", events: [] }, "events");
    await refused({ url: "https://127.0.0.1/", events: ["user.created"], secret: "mine" }, "secret");

    // A public address, and a host listed in WEBHOOK_ALLOWED_HOSTS as written, are accepted.
    expect((await create(a, { url: "https://93.184.215.14/hook", events: ["survey.created"] })).status).toBe(201);
    expect((await create(a, { url: "https://127.0.0.1:8443/hook", events: ["survey.created"] })).status).toBe(201);

    const id = success(await create(a, { url: "http://127.0.0.1:9/bad", events: ["user.*"] }))._id as string;
    const patch = await call(
      webhook.PATCH,
      `/v2/webhooks/${id}`,
      as(a, { method: "PATCH", ...byId(id), body: { url: "http://[::1]:80/" } }),
    );
    expect(patch.status).toBe(400);
    expect(failure(patch).details![0].path).toBe("url");
    const port0 = await call(
      webhook.PATCH,
      `/v2/webhooks/${id}`,
      as(a, { method: "PATCH", ...byId(id), body: { url: "http://127.0.0.1:0/bad" } }),
    );
    expect(port0.status).toBe(400);
    expect(failure(port0).details).toEqual([{ path: "url", message: "must not use port 0" }]);
    const badIds = await call(webhook.GET, "/v2/webhooks/nope", as(a, byId("nope")));
    expect(badIds.status).toBe(400);
    expect(failure(badIds).code).toBe("invalid_id");
    const badDelivery = await call(
      retry.POST,
      `/v2/webhooks/${id}/deliveries/xyz/retry`,
      as(a, { method: "POST", params: { id, deliveryId: "xyz" } }),
    );
    expect(badDelivery.status).toBe(400);
    expect(failure(badDelivery).code).toBe("invalid_id");
    const unknownDelivery = await call(
      retry.POST,
      `/v2/webhooks/${id}/deliveries/${"0".repeat(24)}/retry`,
      as(a, { method: "POST", params: { id, deliveryId: "0".repeat(24) } }),
    );
    expect(unknownDelivery.status).toBe(404);
  });

  it("needs an admin, and for an API key the scope webhooks:write", async () => {
    const byMember = await call(webhooks.GET, "/v2/webhooks", { token: a.memberToken, admin: true });
    expect(byMember.status).toBe(403);
    expect(failure(await call(webhooks.GET, "/v2/webhooks", { token: a.adminToken })).code).toBe("admin_required");

    const narrow = success(
      await call(apiKeys.POST, "/v2/api-keys", as(a, { body: { name: "Narrow", scopes: ["users:read"] } })),
    ).key;
    const refused = await call(webhooks.POST, "/v2/webhooks", {
      token: narrow,
      admin: true,
      body: { url: "http://127.0.0.1:9/", events: ["user.*"] },
    });
    expect(refused.status).toBe(403);
    expect(failure(refused).code).toBe("insufficient_scope");
    expect(failure(refused).message).toContain("webhooks:write");

    const key = success(
      await call(apiKeys.POST, "/v2/api-keys", as(a, { body: { name: "Hooks", scopes: ["webhooks:write"] } })),
    ).key;
    const made = await call(webhooks.POST, "/v2/webhooks", {
      token: key,
      admin: true,
      body: { url: "http://127.0.0.1:9/by-key", events: ["user.*"] },
    });
    expect(made.status).toBe(201);
    const event = await Event.findOne({ "resource.id": success(made)._id, type: "webhook.created" }).lean();
    expect(event!.actor!.type).toBe("apiKey");
  });
});
