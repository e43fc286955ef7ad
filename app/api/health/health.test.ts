/** Liveness and readiness (docs/deployment.md#processes-restarts-and-health) on a real database. */
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call } from "@/lib/tools/testing/http";
import { afterEach, describe, expect, it } from "vitest";
import * as live from "./live/route";
import * as ready from "./ready/route";

const KEY = Symbol.for("usersurveys.shutdown");
const shutdownState = () => (globalThis as unknown as Record<symbol, { draining: boolean }>)[KEY];

describe("health", () => {
  useTestDatabase();
  afterEach(() => {
    if (shutdownState()) shutdownState().draining = false;
  });

  it("is live and ready while the process serves and its database answers", async () => {
    expect((await call(live.GET, "/api/health/live")).status).toBe(200);
    const answer = await call(ready.GET, "/api/health/ready");
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ status: "ready" });
  });

  it("is not ready once the process drains, but still live", async () => {
    const { startDraining } = await import("@/lib/base/shared/shutdown");
    startDraining();
    const answer = await call(ready.GET, "/api/health/ready", { headers: { "x-request-id": "drain-1" } });
    expect(answer.status).toBe(503);
    expect(answer.body).toMatchObject({ error: { status: 503, code: "service_unavailable", requestId: "drain-1" } });
    expect((await call(live.GET, "/api/health/live")).status).toBe(200);
  });
});
