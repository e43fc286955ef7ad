import * as login from "@/app/api/auth/login/route";
import * as users from "@/app/v2/users/route";
import { log } from "@/lib/kernel/log";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call } from "@/lib/tools/testing/http";
import { afterEach, describe, expect, it, vi } from "vitest";

describe("the log line of a client's bad input", () => {
  useTestDatabase();
  afterEach(() => vi.restoreAllMocks());

  const nested = (levels: number) => '{"email":'.repeat(levels) + "1" + "}".repeat(levels);

  it.each([
    [
      "a body nested 5,000 levels deep",
      () =>
        call(login.POST, "/api/auth/login", {
          rawBody: nested(5_000),
          headers: { "content-type": "application/json" },
        }),
      400,
    ],
    [
      "a body nested 100,000 levels deep",
      () =>
        call(login.POST, "/api/auth/login", {
          rawBody: nested(100_000),
          headers: { "content-type": "application/json" },
        }),
      400,
    ],
    [
      "malformed JSON",
      () =>
        call(login.POST, "/api/auth/login", { rawBody: '{"email":', headers: { "content-type": "application/json" } }),
      400,
    ],
    ["a forged token", () => call(users.GET, "/v2/users", { headers: { authorization: "Bearer not.a.jwt" } }), 401],
    ["a method the route lacks", () => call(users.DELETE, "/v2/users", { method: "DELETE" }), 405],
  ])("is one info line with the code and no stack: %s", async (_, send, status) => {
    const info = vi.spyOn(log(), "info");
    const error = vi.spyOn(log(), "error");
    expect((await send()).status).toBe(status);
    expect(error).not.toHaveBeenCalled();
    // The first request also logs the start of the service; the request's own line is "request".
    const lines = (info.mock.calls as unknown as [Record<string, unknown>, string][]).filter(
      ([, message]) => message === "request",
    );
    expect(lines).toHaveLength(1);
    const [[fields]] = lines;
    expect(fields).toMatchObject({ status, code: expect.any(String) });
    expect(JSON.stringify(fields)).not.toMatch(/stack|\bat \S+ \(|Error:/);
    expect(fields).not.toHaveProperty("err");
  });
});
