import * as me from "@/app/v2/users/me/route";
import { PRINCIPAL_TTL_MS } from "@/lib/resources/credentials/sessions";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, createTenant, success } from "@/lib/tools/testing/http";
import { execFile } from "node:child_process";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = path.resolve(__dirname, "..", "..", "..");
const tsx = path.join(root, "node_modules", ".bin", "tsx");

// Each CLI run starts a Node process with tsx: seconds each, more on a busy machine.
describe("token CLI: --revoke and --revoke-all", { timeout: 120_000 }, () => {
  const db = useTestDatabase();

  const token = async (args: string[]) => {
    const { stdout, stderr } = await run(tsx, [path.join(root, "lib", "platform", "cli", "token.ts"), ...args], {
      cwd: root,
      env: { ...process.env, MONGODB_URI: db.uri, LOG_LEVEL: "info" },
      timeout: 60_000,
    });
    return { stdout, stderr };
  };
  const status = async (accessToken: string) => (await call(me.GET, "/v2/users/me", { token: accessToken })).status;

  it("prints the token's id on stderr; revoking it in the CLI's process reaches this one", async () => {
    const t = await createTenant("Token CLI");
    const email: string = success(await call(me.GET, "/v2/users/me", { token: t.adminToken })).email;
    const issued = await token(["--email", email, "--ttl", "1h"]);
    const id = /Token id \(for --revoke\): ([0-9a-f]{24})/.exec(issued.stderr)?.[1];
    expect(id, issued.stderr).toBeDefined();
    const accessToken = issued.stdout.trim();
    const other = (await token(["--email", email])).stdout.trim();
    // Used once here first, so this process holds its principal in its cache.
    expect([await status(accessToken), await status(other)]).toEqual([200, 200]);

    const revoked = await token(["--revoke", id!]);
    expect(revoked.stdout).toBe("");
    expect(revoked.stderr).toContain("revoked");
    // Another process's revocation is seen once the cached principal has expired.
    await sleep(PRINCIPAL_TTL_MS + 100);
    expect(await status(accessToken)).toBe(401);
    expect(await status(other)).toBe(200);

    const all = await token(["--revoke-all", "--email", email]);
    expect(all.stderr).toMatch(/Revoked [1-9]\d* session/);
    await sleep(PRINCIPAL_TTL_MS + 100);
    expect(await status(other)).toBe(401);
  });
});
