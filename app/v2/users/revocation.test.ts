/**
 * A password change ends the account's other sessions and tokens; API tokens can be revoked
 * (docs/security.md, "Passwords and tokens").
 */
import * as invitation from "@/app/api/auth/invitation/route";
import { createApiToken, login, refresh, revokeAllTokens, revokeApiToken } from "@/lib/resources/auth/service";
import { Session } from "@/lib/resources/credentials/repository";
import { JobRunner } from "@/lib/resources/jobs/runner";
import { OutboxMail } from "@/lib/resources/mail/repository";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, createTenant, success, type Tenant } from "@/lib/tools/testing/http";
import { beforeAll, describe, expect, it } from "vitest";
import * as user from "./[id]/route";
import * as bulk from "./bulk/route";
import * as importRoute from "./import/route";
import * as me from "./me/route";
import * as users from "./route";

describe("revoking sessions and tokens", () => {
  useTestDatabase();
  let t: Tenant;
  let n = 0;

  beforeAll(async () => {
    t = await createTenant("Revocation");
  });

  /** A new user of the company with a password; `admin` gives them the Admin role. */
  async function person(password: string, admin = false) {
    const response = await call(users.POST, "/v2/users", {
      token: t.adminToken,
      admin: true,
      body: { email: `person${++n}@revocation.test`, accessRoles: [admin ? t.adminRoleId : t.memberRoleId], password },
    });
    expect(response.status).toBe(201);
    return success(response);
  }
  const status = async (token: string) => (await call(me.GET, "/v2/users/me", { token })).status;
  const patch = (token: string, id: string, body: Record<string, unknown>) =>
    call(user.PATCH, `/v2/users/${id}`, { method: "PATCH", token, admin: true, params: { id }, body });

  it("an admin changes a user's password: every session and token of the user stops working", async () => {
    const someone = await person("first password");
    const browser = await login(someone.email, "first password");
    const api = await createApiToken(someone.email, 3600);
    expect([await status(browser.accessToken), await status(api.accessToken)]).toEqual([200, 200]);

    expect((await patch(t.adminToken, someone._id, { password: "second password" })).status).toBe(200);
    expect([await status(browser.accessToken), await status(api.accessToken)]).toEqual([401, 401]);
    await expect(refresh(browser.sessionToken)).rejects.toMatchObject({ code: "unauthorized" });
    await expect(login(someone.email, "first password")).rejects.toMatchObject({ code: "unauthorized" });
    expect(await status((await login(someone.email, "second password")).accessToken)).toBe(200);
    // The admin's own token is untouched.
    expect(await status(t.adminToken)).toBe(200);
  });

  it("a person changes their own password: the session they did it from stays, the others end", async () => {
    const self = await person("my old password", true);
    const here = await login(self.email, "my old password");
    const elsewhere = await login(self.email, "my old password");
    const api = await createApiToken(self.email, 3600);

    expect((await patch(here.accessToken, self._id, { password: "my new password" })).status).toBe(200);
    expect(await status(here.accessToken)).toBe(200);
    expect(await status((await refresh(here.sessionToken)).accessToken)).toBe(200);
    expect([await status(elsewhere.accessToken), await status(api.accessToken)]).toEqual([401, 401]);
    await expect(refresh(elsewhere.sessionToken)).rejects.toMatchObject({ code: "unauthorized" });
  });

  it("a PATCH without a password leaves sessions alone", async () => {
    const someone = await person("a password!");
    const browser = await login(someone.email, "a password!");
    expect((await patch(t.adminToken, someone._id, { phone: "+34 600 000 000" })).status).toBe(200);
    expect(await status(browser.accessToken)).toBe(200);
  });

  it("setting a password through an invitation ends the account's tokens", async () => {
    const email = `invited${++n}@revocation.test`;
    await call(users.POST, "/v2/users?notifyEmail=true", {
      token: t.adminToken,
      admin: true,
      body: { email, accessRoles: [t.memberRoleId] },
    });
    const api = await createApiToken(email, 3600);
    expect(await status(api.accessToken)).toBe(200);
    const mail = await OutboxMail.findOne({ to: email }).lean();
    const link = /\/invitation\/([\w-]+)/.exec(mail?.text ?? "")![1];
    expect(
      (await call(invitation.POST, "/api/auth/invitation", { body: { token: link, password: "invited password" } }))
        .status,
    ).toBe(200);
    expect(await status(api.accessToken)).toBe(401);
  });

  it("an API token is revoked by its id or by itself; --revoke-all ends everything of the account", async () => {
    const someone = await person("a password!!");
    const [first, second, third] = [
      await createApiToken(someone.email, 3600),
      await createApiToken(someone.email, 3600),
      await createApiToken(someone.email, 3600),
    ];
    const browser = await login(someone.email, "a password!!");
    const [, payload] = first.accessToken.split(".");
    expect(JSON.parse(Buffer.from(payload, "base64url").toString()).jti).toBe(first.id);
    for (const token of [first, second, third, browser]) expect(await status(token.accessToken)).toBe(200);

    expect(await revokeApiToken(first.id)).toBe(true);
    expect(await status(first.accessToken)).toBe(401);
    expect(await status(second.accessToken)).toBe(200);
    expect(await revokeApiToken(second.accessToken)).toBe(true);
    expect(await status(second.accessToken)).toBe(401);
    expect(await revokeApiToken(second.id)).toBe(false);
    // A browser session is not an API token: --revoke does not take it.
    expect(await revokeApiToken(browser.accessToken)).toBe(false);
    await expect(revokeApiToken("not a token")).rejects.toMatchObject({ code: "invalid_request" });
    expect(await status(third.accessToken)).toBe(200);

    expect(await revokeAllTokens(someone.email)).toBe(2);
    expect([await status(third.accessToken), await status(browser.accessToken)]).toEqual([401, 401]);
    expect(await Session.countDocuments({ userId: someone._id })).toBe(0);
  });

  it("deactivation ends the user's sessions and tokens in the company: after reactivation the old ones stay 401", async () => {
    const someone = await person("deactivated password");
    const browser = await login(someone.email, "deactivated password");
    const api = await createApiToken(someone.email, 3600);
    expect([await status(browser.accessToken), await status(api.accessToken)]).toEqual([200, 200]);

    expect((await patch(t.adminToken, someone._id, { isActive: false })).status).toBe(200);
    expect(await Session.countDocuments({ userId: someone._id })).toBe(0);
    expect((await patch(t.adminToken, someone._id, { isActive: true })).status).toBe(200);
    expect([await status(browser.accessToken), await status(api.accessToken)]).toEqual([401, 401]);
    await expect(refresh(browser.sessionToken)).rejects.toMatchObject({ code: "unauthorized" });
    // A new sign-in works again.
    expect(await status((await login(someone.email, "deactivated password")).accessToken)).toBe(200);
  });

  it("a bulk deactivation ends sessions too, and a PATCH that leaves isActive alone does not", async () => {
    const someone = await person("bulk password");
    const token = (await login(someone.email, "bulk password")).accessToken;
    expect((await patch(t.adminToken, someone._id, { isActive: true, phone: "+34 600" })).status).toBe(200);
    expect(await status(token)).toBe(200);
    const deactivated = await call(bulk.POST, "/v2/users/bulk", {
      token: t.adminToken,
      admin: true,
      body: { action: "deactivate", ids: [someone._id] },
    });
    expect(success(deactivated).summary.changed).toBe(1);
    await call(bulk.POST, "/v2/users/bulk", {
      token: t.adminToken,
      admin: true,
      body: { action: "activate", ids: [someone._id] },
    });
    expect(await status(token)).toBe(401);
  });

  it("an import row deactivating a user ends their sessions too", async () => {
    const someone = await person("import password");
    const token = (await login(someone.email, "import password")).accessToken;
    expect(await status(token)).toBe(200);
    const started = await call(importRoute.POST, "/v2/users/import", {
      method: "POST",
      token: t.adminToken,
      admin: true,
      rawBody: `email,isActive\n${someone.email},false\n`,
      headers: { "content-type": "text/csv" },
    });
    expect(started.status).toBe(202);
    await new JobRunner({ batchSize: 10 }).runOnce();
    expect(await Session.countDocuments({ userId: someone._id })).toBe(0);
    expect((await patch(t.adminToken, someone._id, { isActive: true })).status).toBe(200);
    expect(await status(token)).toBe(401);
  });
});
