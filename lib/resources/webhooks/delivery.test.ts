import { oid } from "@/lib/kernel/ids";
import type { Principal } from "@/lib/kernel/principal";
import { Event } from "@/lib/resources/events/repository";
import { OutboxMail } from "@/lib/resources/mail/repository";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { createTenant, type Tenant } from "@/lib/tools/testing/http";
import { Webhook as Verifier } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { type DeliveryOptions, retryDelayMs, WebhookDelivery } from "./delivery";
import { claimDueDelivery, Delivery, Webhook } from "./repository";
import { createWebhook, listDeliveries, testWebhook, updateWebhook } from "./service";
import { happen as commit, receiver } from "./testing/fixtures";

process.env.WEBHOOK_ALLOWED_HOSTS = "127.0.0.1";

describe("webhook delivery", () => {
  useTestDatabase();
  let tenant: Tenant;
  let auth: Principal;
  const workers: WebhookDelivery[] = [];
  const receivers: { close(): Promise<void> }[] = [];

  beforeAll(async () => {
    tenant = await createTenant("Delivery");
    auth = { userId: tenant.adminId, companyId: tenant.companyId, sessionId: "", accessRoles: [] };
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((worker) => worker.stop()));
    await Promise.all(receivers.splice(0).map((each) => each.close()));
    // Each test starts with no webhook, so no other test's retries are due in it.
    await Promise.all([Webhook.deleteMany({}), Delivery.deleteMany({})]);
  });
  afterAll(() => vi.useRealTimers());

  const start = (options: DeliveryOptions = {}) => {
    const worker = new WebhookDelivery({ pollMs: 20, retryBaseMs: 50, ...options }).start();
    workers.push(worker);
    return worker;
  };
  const listen = async (answer?: (n: number) => number) => {
    const made = await receiver(answer);
    receivers.push(made);
    return made;
  };
  const happen = (type: string, id?: string) => commit(tenant, type, id);
  const attempts = async (webhookId: string) =>
    (await listDeliveries(auth, webhookId, { limit: 100, count: false })).data.deliveries;

  it("POSTs each matching event once, signed so that standardwebhooks verifies it", async () => {
    const target = await listen();
    const hook = await createWebhook(auth, { url: target.url, events: ["user.updated", "survey.*"] });
    start();
    const updated = await happen("user.updated");
    await happen("user.created");
    const survey = await happen("survey.deleted", "s1");
    await vi.waitFor(() => expect(target.received).toHaveLength(2), { timeout: 5_000 });

    const verifier = new Verifier(hook.secret!);
    const bodies = target.received.map(
      ({ headers, body }) => verifier.verify(body, headers as Record<string, string>) as Record<string, unknown>,
    );
    expect(bodies.map((body) => body.type)).toEqual(["user.updated", "survey.deleted"]);
    expect(bodies[0]).toEqual({
      _id: updated._id.toHexString(),
      type: "user.updated",
      resource: { type: "user", id: "u1" },
      changes: ["phone"],
      actor: { type: "user", id: tenant.adminId },
      requestId: "req-1",
      createdAt: updated.createdAt.toISOString(),
    });
    expect(target.received.map(({ headers }) => headers["webhook-id"])).toEqual([
      updated._id.toHexString(),
      survey._id.toHexString(),
    ]);
    // Signed with another secret, it does not verify.
    expect(() =>
      new Verifier(`whsec_${Buffer.from("another secret of 24 byte").toString("base64")}`).verify(
        target.received[0].body,
        target.received[0].headers as Record<string, string>,
      ),
    ).toThrow();

    await vi.waitFor(async () =>
      expect((await attempts(hook._id)).map((d) => d.status)).toEqual(["succeeded", "succeeded"]),
    );
    const [latest] = await attempts(hook._id);
    expect(latest).toMatchObject({
      eventId: survey._id.toHexString(),
      attempt: 1,
      responseStatus: 200,
      error: null,
      nextAttemptAt: null,
    });
  });

  it("delivers to the whole stored URL (userinfo as Basic credentials, the query as written) while every answer and event shows it masked", async () => {
    const target = await listen();
    const whole = target.url.replace("http://", "http://hook-user:p%40ss@") + "?token=s3cret-token&a=1";
    const hook = await createWebhook(auth, { url: whole, events: ["webhook.*"] });
    expect(hook.url).toBe(target.url.replace("http://", "http://•••@") + "?token=•••&a=•••");
    expect((await Webhook.findById(hook._id).lean())!.url).toBe(whole);
    start();
    // Its own creation and change are events it receives: their bodies name fields, never values.
    await updateWebhook(auth, hook._id, { description: "Receiver with credentials" });
    await testWebhook(auth, hook._id);
    await vi.waitFor(() => expect(target.received).toHaveLength(3), { timeout: 5_000 });
    for (const { url, headers, body } of target.received) {
      expect(url).toBe("/hook?token=s3cret-token&a=1");
      expect(headers.authorization).toBe(`Basic ${Buffer.from("hook-user:p@ss").toString("base64")}`);
      expect(body).not.toMatch(/s3cret|hook-user|p%40ss/);
    }
    expect(target.received.map(({ body }) => JSON.parse(body).type).sort()).toEqual([
      "webhook.created",
      "webhook.test",
      "webhook.updated",
    ]);
  });

  it("retries a failed delivery with backoff until the receiver answers 2xx, each attempt listed", async () => {
    const target = await listen((n) => (n <= 2 ? 500 : 200));
    const hook = await createWebhook(auth, { url: target.url, events: ["user.*"] });
    start();
    const event = await happen("user.created", "u2");
    await vi.waitFor(
      async () =>
        expect((await attempts(hook._id)).map((d) => [d.attempt, d.status])).toEqual([
          [3, "succeeded"],
          [2, "failed"],
          [1, "failed"],
        ]),
      { timeout: 5_000 },
    );
    expect(target.received).toHaveLength(3);
    expect(new Set(target.received.map(({ headers }) => headers["webhook-id"]))).toEqual(
      new Set([event._id.toHexString()]),
    );
    const [, second, first] = await attempts(hook._id);
    expect(first).toMatchObject({
      responseStatus: 500,
      error: "the receiver answered 500",
      nextAttemptAt: expect.any(String),
    });
    expect(second.nextAttemptAt).not.toBeNull();
  });

  it("stops after the last attempt, and spreads the schedule over about a day by default", async () => {
    const target = await listen(() => 503);
    const hook = await createWebhook(auth, { url: target.url, events: ["user.*"] });
    start({ maxAttempts: 3, retryBaseMs: 10 });
    await happen("user.deleted", "u3");
    await vi.waitFor(
      async () =>
        expect((await attempts(hook._id)).map((d) => [d.attempt, d.status])).toEqual([
          [3, "failed"],
          [2, "failed"],
          [1, "failed"],
        ]),
      { timeout: 5_000 },
    );
    expect((await attempts(hook._id))[0].nextAttemptAt).toBeNull();

    // The 7 waits between 8 attempts from a 60 s base: 1 + 3 + 9 + … + 729 minutes, about 18 hours (±20 %).
    const total = (random: () => number) =>
      Array.from({ length: 7 }, (_, n) => retryDelayMs(n + 1, 60_000, random)).reduce((sum, ms) => sum + ms, 0);
    expect(total(() => 0.5) / 3_600_000).toBeCloseTo(18.2, 1);
    expect(total(() => 0) / 3_600_000).toBeGreaterThan(14);
    expect(total(() => 1) / 3_600_000).toBeLessThan(22);
  });

  it("makes each delivery once with two workers sharing the database", async () => {
    const target = await listen();
    const hook = await createWebhook(auth, { url: target.url, events: ["user.updated"] });
    const events = [];
    for (let n = 0; n < 20; n++) events.push(await happen("user.updated", `many-${n}`));
    start({ owner: "worker-1" });
    start({ owner: "worker-2" });
    await vi.waitFor(
      async () => expect((await attempts(hook._id)).filter((d) => d.status === "succeeded")).toHaveLength(20),
      { timeout: 10_000 },
    );
    // A moment more for any duplicate to arrive.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(target.received.map(({ headers }) => headers["webhook-id"]).sort()).toEqual(
      events.map((event) => event._id.toHexString()).sort(),
    );
    expect(await Delivery.countDocuments({ webhook: oid(hook._id) })).toBe(20);
    const owners = new Set((await Delivery.find({ webhook: oid(hook._id) }).lean()).map((d) => d.leaseOwner));
    expect([...owners].every((owner) => owner === "worker-1" || owner === "worker-2")).toBe(true);
  });

  it("redelivers an attempt whose worker died holding it, once its lease expires", async () => {
    const target = await listen();
    const hook = await createWebhook(auth, { url: target.url, events: ["bot.*"] });
    const event = await happen("bot.created", "b1");
    // The first worker queues the attempt, takes it for 300 ms and dies before making it.
    await new WebhookDelivery({ owner: "doomed" }).dispatch();
    const now = new Date();
    const taken = await claimDueDelivery("doomed", now, new Date(now.getTime() + 300));
    expect(taken!.eventId.toHexString()).toBe(event._id.toHexString());

    start({ owner: "survivor" });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(target.received).toHaveLength(0);
    await vi.waitFor(() => expect(target.received).toHaveLength(1), { timeout: 5_000 });
    expect(target.received[0].headers["webhook-id"]).toBe(event._id.toHexString());
    await vi.waitFor(async () => expect((await attempts(hook._id)).map((d) => d.status)).toEqual(["succeeded"]));
    expect((await Delivery.findById(taken!._id).lean())!.leaseOwner).toBe("survivor");
  });

  it("sends a test event to an inactive webhook too, not retried", async () => {
    const target = await listen();
    const hook = await createWebhook(auth, { url: target.url, events: ["user.created"] });
    await Webhook.updateOne({ _id: oid(hook._id) }, { $set: { isActive: false } });
    start();
    const queued = await testWebhook(auth, hook._id);
    await vi.waitFor(() => expect(target.received).toHaveLength(1), { timeout: 5_000 });
    const body = new Verifier(hook.secret!).verify(
      target.received[0].body,
      target.received[0].headers as Record<string, string>,
    );
    expect(body).toMatchObject({
      _id: queued.eventId,
      type: "webhook.test",
      resource: { type: "webhook", id: hook._id },
    });
  });

  it("turns off a webhook failing for longer than allowed and tells the company's admins", async () => {
    const target = await listen(() => 500);
    const hook = await createWebhook(auth, { url: target.url, events: ["user.*"] });
    start({ disableAfterMs: 0 });
    await happen("user.updated", "u4");
    await vi.waitFor(async () => expect((await Webhook.findById(hook._id).lean())!.isActive).toBe(false), {
      timeout: 5_000,
    });
    await vi.waitFor(async () =>
      expect(
        await OutboxMail.countDocuments({ company: oid(tenant.companyId), subject: /webhook was turned off/ }),
      ).toBe(1),
    );
    const disabled = await Event.findOne({ "resource.id": hook._id, type: "webhook.updated" }).lean();
    expect(disabled).toMatchObject({ changes: ["isActive"], actor: null });
    // Turned off, it queues nothing new and the pending retry fails without a request.
    await vi.waitFor(async () => expect((await attempts(hook._id)).some((d) => d.status === "pending")).toBe(false), {
      timeout: 5_000,
    });
    const sent = target.received.length;
    await happen("user.updated", "u5");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(target.received).toHaveLength(sent);
  });
});
