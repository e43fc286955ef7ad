import { newId, oid } from "@/lib/kernel/ids";
import type { Principal } from "@/lib/kernel/principal";
import { insertJob, newJobDoc } from "@/lib/resources/jobs/repository";
import { QUEUE_COUNTS_TTL_MS } from "@/lib/resources/spanning/metrics";
import { WebhookDelivery } from "@/lib/resources/webhooks/delivery";
import { insertDeliveries, newDeliveryDoc } from "@/lib/resources/webhooks/repository";
import { createWebhook } from "@/lib/resources/webhooks/service";
import { happen, receiver } from "@/lib/resources/webhooks/testing/fixtures";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, callText, createTenant, failure, success, type Tenant } from "@/lib/tools/testing/http";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import * as apiKeys from "../v2/api-keys/route";
import * as user from "../v2/users/[id]/route";
import * as users from "../v2/users/route";
import * as metricsRoute from "./route";

process.env.WEBHOOK_ALLOWED_HOSTS = "127.0.0.1";

/** The value of one sample line of the text format (`name{labels} value`), or `undefined` when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((each) => each.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("GET /metrics", () => {
  const db = useTestDatabase();
  let a: Tenant;
  let metricsKey: string;
  let readerKey: string;

  beforeAll(async () => {
    a = await createTenant("Metrics");
    const createKey = async (scopes: string[]) =>
      success(
        await call(apiKeys.POST, "/v2/api-keys", {
          token: a.adminToken,
          admin: true,
          body: { name: scopes.join(" "), scopes },
        }),
      ).key!;
    metricsKey = await createKey(["metrics:read"]);
    readerKey = await createKey(["users:read"]);
  });
  afterEach(() => vi.useRealTimers());

  const scrape = async (token = metricsKey) => {
    const answer = await callText(metricsRoute.GET, "/metrics", { token });
    expect(answer.status, answer.text).toBe(200);
    return answer.text;
  };

  it("answers an API key with metrics:read and an admin's token, in Prometheus' text format", async () => {
    const byKey = await callText(metricsRoute.GET, "/metrics", { token: metricsKey });
    expect(byKey.status).toBe(200);
    expect(byKey.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(byKey.headers.get("cache-control")).toBe("no-store");
    expect(byKey.headers.get("x-request-id")).toBeTruthy();
    expect(byKey.text).toContain("# TYPE http_requests_total counter");
    // The process's own metrics.
    expect(byKey.text).toMatch(/^process_cpu_seconds_total \d/m);
    expect(byKey.text).toMatch(/^nodejs_heap_size_used_bytes \d/m);

    // A signed-in admin needs no Admin header: reading the metrics changes nothing.
    const byAdmin = await callText(metricsRoute.GET, "/metrics", { token: a.adminToken });
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.text).toContain("# TYPE http_requests_total counter");
  });

  it("refuses anyone else in the error envelope: no token 401, a key without the scope or a member 403", async () => {
    const none = await call(metricsRoute.GET, "/metrics");
    expect(none.status).toBe(401);
    expect(failure(none).code).toBe("unauthorized");

    const forged = await call(metricsRoute.GET, "/metrics", {
      token: "usk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    });
    expect(forged.status).toBe(401);

    const reader = await call(metricsRoute.GET, "/metrics", { token: readerKey });
    expect(reader.status).toBe(403);
    expect(failure(reader)).toMatchObject({ code: "insufficient_scope" });
    expect(failure(reader).message).toContain("metrics:read");

    const member = await call(metricsRoute.GET, "/metrics", { token: a.memberToken });
    expect(member.status).toBe(403);
    expect(failure(member).code).toBe("forbidden");
    expect(member.headers.get("content-type")).toContain("application/json");

    // The refusals are counted too, under the route's path.
    const text = await scrape();
    expect(sample(text, 'http_requests_total{operation="/metrics",method="GET",status="403"}')).toBeGreaterThanOrEqual(
      2,
    );
    expect(sample(text, 'http_requests_total{operation="/metrics",method="GET",status="401"}')).toBeGreaterThanOrEqual(
      2,
    );
  });

  it("counts requests by operation template, method and status, with their latency", async () => {
    const series = (status: number) => `{operation="/v2/users/{id}",method="GET",status="${status}"}`;
    const before = await scrape();
    const missing = "0123456789abcdef01234567";
    expect(
      (await call(user.GET, `/v2/users/${missing}`, { token: a.adminToken, params: { id: missing } })).status,
    ).toBe(404);
    expect(
      (await call(user.GET, `/v2/users/${missing}`, { token: a.adminToken, params: { id: missing } })).status,
    ).toBe(404);
    expect(
      (await call(user.GET, `/v2/users/${a.memberId}`, { token: a.adminToken, params: { id: a.memberId } })).status,
    ).toBe(200);
    expect((await call(users.GET, "/v2/users?email=nobody@example.com", { token: a.adminToken })).status).toBe(200);
    const after = await scrape();

    const delta = (name: string) => (sample(after, name) ?? 0) - (sample(before, name) ?? 0);
    expect(delta(`http_requests_total${series(404)}`)).toBe(2);
    expect(delta(`http_requests_total${series(200)}`)).toBe(1);
    expect(delta('http_requests_total{operation="/v2/users",method="GET",status="200"}')).toBe(1);
    expect(delta(`http_request_duration_seconds_count${series(404)}`)).toBe(2);
    expect(
      delta('http_request_duration_seconds_bucket{le="+Inf",operation="/v2/users/{id}",method="GET",status="404"}'),
    ).toBe(2);
    // The template, never the id a client sent.
    expect(after).not.toContain(missing);
    expect(after).not.toContain(a.memberId);
  });

  it("times the database's commands by command name, failures counted apart", async () => {
    const before = await scrape();
    await db.mongoose.connection
      .db!.collection("users")
      .find({ _id: oid(a.memberId) })
      .toArray();
    await expect(db.mongoose.connection.db!.command({ noSuchCommand: 1 })).rejects.toThrow();
    const after = await scrape();

    expect(after).toContain("# TYPE db_command_duration_seconds histogram");
    const finds = (text: string) => sample(text, 'db_command_duration_seconds_count{command="find"}') ?? 0;
    // The find above, and those the scrape's own request made (the key's lookup) in between.
    expect(finds(after) - finds(before)).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'db_command_duration_seconds_bucket{le="+Inf",command="find"}')).toBe(finds(after));
    expect(sample(after, 'db_command_failures_total{command="noSuchCommand"}')).toBe(1);
    expect(sample(after, 'db_command_failures_total{command="find"}')).toBeUndefined();
  });

  it("reads pending webhook deliveries and queued jobs from the database, at most every few seconds", async () => {
    const now = new Date();
    const company = oid(a.companyId);
    const delivery = (dueAt: Date) =>
      newDeliveryDoc(
        { company, webhook: newId(), eventId: newId(), body: "{}", attempt: 1, manual: false, dueAt },
        now,
      );
    // Not delivered by anyone in this test: no delivery loop runs, and these webhooks do not exist.
    await insertDeliveries([
      delivery(new Date(now.getTime() - 1000)),
      delivery(new Date(now.getTime() - 1)),
      delivery(new Date(now.getTime() + 3_600_000)),
    ]);
    const actor = { userId: a.adminId, apiKeyId: null, scopes: [], requestId: null, ip: null, userAgent: null };
    await insertJob(
      newJobDoc(
        { company, type: "users.import", dryRun: false, file: { mediaType: "text/csv", bytes: 1, chunks: 1 }, actor },
        now,
      ),
    );

    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + QUEUE_COUNTS_TTL_MS });
    const text = await scrape();
    expect(text).toContain("# TYPE webhook_deliveries_pending gauge");
    expect(sample(text, "webhook_deliveries_pending")).toBe(3);
    expect(sample(text, "webhook_deliveries_due")).toBe(2);
    expect(sample(text, "jobs_queued")).toBe(1);
    expect(sample(text, "jobs_running")).toBe(0);

    // Within the cache's lifetime a new job is not counted yet; past it, it is.
    await insertJob(
      newJobDoc(
        { company, type: "users.import", dryRun: false, file: { mediaType: "text/csv", bytes: 1, chunks: 1 }, actor },
        now,
      ),
    );
    expect(sample(await scrape(), "jobs_queued")).toBe(1);
    vi.setSystemTime(Date.now() + QUEUE_COUNTS_TTL_MS);
    expect(sample(await scrape(), "jobs_queued")).toBe(2);
  });

  it("observes the lag from an event's creation to its delivery", async () => {
    const lag = (text: string) => sample(text, "webhook_delivery_lag_seconds_count") ?? 0;
    const before = lag(await scrape());
    const target = await receiver();
    const auth: Principal = { userId: a.adminId, companyId: a.companyId, sessionId: "", accessRoles: [] };
    await createWebhook(auth, { url: target.url, events: ["user.updated"] });
    const worker = new WebhookDelivery({ pollMs: 20 }).start();
    try {
      await happen(a, "user.updated");
      await vi.waitFor(async () => expect(lag(await scrape()) - before).toBe(1), { timeout: 10_000 });
    } finally {
      await worker.stop();
      await target.close();
    }
    const text = await scrape();
    expect(sample(text, 'webhook_delivery_lag_seconds_bucket{le="+Inf"}')).toBe(lag(text));
    expect(sample(text, "webhook_delivery_lag_seconds_sum")).toBeGreaterThanOrEqual(0);
  });
});
