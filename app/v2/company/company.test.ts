/**
 * GET and PATCH /v2/company (docs/api.md#days): the caller's company's settings, its `timeZone`
 * UTC by default, validated by Intl and stored by its canonical name; admins change it, a key
 * needs its scope, and no company sees or changes another's.
 */
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, createTenant, failure, success, type Tenant } from "@/lib/tools/testing/http";
import { beforeAll, describe, expect, it } from "vitest";
import * as apiKeys from "../api-keys/route";
import * as company from "./route";

describe("GET and PATCH /v2/company", () => {
  useTestDatabase();
  let a: Tenant;
  let b: Tenant;

  beforeAll(async () => {
    [a, b] = await Promise.all([createTenant("Zone A"), createTenant("Zone B")]);
  });

  const read = (token: string) => call(company.GET, "/v2/company", { token });
  const patch = (token: string, body: unknown, admin = true) =>
    call(company.PATCH, "/v2/company", { method: "PATCH", token, admin, body });

  it("a company's zone is UTC until an admin sets it; every member reads it", async () => {
    const before = success(await read(a.memberToken));
    expect(before).toMatchObject({ _id: a.companyId, name: "Zone A", timeZone: "UTC" });
    const changed = await patch(a.adminToken, { timeZone: "Pacific/Auckland" });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(success(changed)).toMatchObject({ _id: a.companyId, timeZone: "Pacific/Auckland" });
    expect(success(await read(a.memberToken)).timeZone).toBe("Pacific/Auckland");
    // Another company keeps its own.
    expect(success(await read(b.adminToken)).timeZone).toBe("UTC");
  });

  it("stores the canonical name, and refuses what Intl does not know with 400 naming timeZone", async () => {
    expect(success(await patch(b.adminToken, { timeZone: "utc" })).timeZone).toBe("UTC");
    for (const timeZone of ["Mars/Olympus", "", "Europe/Paris; DROP", 5, null, "../../etc/passwd", "x".repeat(300)]) {
      const response = await patch(b.adminToken, { timeZone });
      expect(response.status, String(timeZone)).toBe(400);
      expect(failure(response).details?.[0].path, String(timeZone)).toBe("timeZone");
    }
    const unknown = await patch(b.adminToken, { timeZone: "UTC", companyId: a.companyId });
    expect(unknown.status).toBe(400);
    expect(success(await read(a.adminToken)).timeZone).toBe("Pacific/Auckland");
  });

  it("only an admin changes it: a member is refused, and the Admin header is required", async () => {
    expect((await patch(a.memberToken, { timeZone: "Europe/Paris" })).status).toBe(403);
    expect((await patch(a.adminToken, { timeZone: "Europe/Paris" }, false)).status).toBe(403);
    expect(success(await read(a.adminToken)).timeZone).toBe("Pacific/Auckland");
  });

  it("an API key reads with reference:read and changes with reference:write", async () => {
    const key = async (scopes: string[]) =>
      success(
        await call(apiKeys.POST, "/v2/api-keys", {
          token: a.adminToken,
          admin: true,
          body: { name: `Zone ${scopes.join(" ")}`, scopes },
        }),
      ).key!;
    const reader = await key(["reference:read"]);
    expect(success(await read(reader)).timeZone).toBe("Pacific/Auckland");
    const refused = await patch(reader, { timeZone: "Europe/Paris" });
    expect(refused.status).toBe(403);
    expect(failure(refused).code).toBe("insufficient_scope");
    const other = await key(["users:read"]);
    expect((await read(other)).status).toBe(403);
    const writer = await key(["reference:write"]);
    expect(success(await patch(writer, { timeZone: "America/Los_Angeles" })).timeZone).toBe("America/Los_Angeles");
    // The key's company only: another company's zone is neither named nor changed.
    expect(success(await read(b.adminToken)).timeZone).toBe("UTC");
    expect((await patch(writer, { timeZone: "Europe/Paris", _id: b.companyId })).status).toBe(400);
    expect(success(await read(b.adminToken)).timeZone).toBe("UTC");
  });
});
