import * as users from "@/app/v2/users/route";
import { loadConfig } from "@/lib/base/config";
import { hashToken } from "@/lib/kernel/ids";
import { InvitationStatus } from "@/lib/resources/auth/schemas";
import { Credential } from "@/lib/resources/credentials/repository";
import { Invitation, OutboxMail } from "@/lib/resources/mail/repository";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, createTenant, failure, success, type Tenant } from "@/lib/tools/testing/http";
import { beforeAll, describe, expect, it } from "vitest";
import * as login from "../login/route";
import * as invitation from "./route";

describe("invitations (notifyEmail=true)", () => {
  useTestDatabase();
  let t: Tenant;

  beforeAll(async () => {
    delete process.env.SMTP_URL;
    t = await createTenant("Invites");
  });

  const invite = (email: string, extra: Record<string, unknown> = {}) =>
    call(users.POST, "/v2/users?notifyEmail=true&debug=true", {
      token: t.adminToken,
      admin: true,
      body: { email, accessRoles: [t.memberRoleId], ...extra },
    });
  /** The token of the mail's link, which must start with PUBLIC_URL (`http://localhost:PORT` while it is unset). */
  const linkOf = async (email: string, origin = loadConfig().publicUrl) => {
    const mail = await OutboxMail.findOne({ to: email }).lean();
    const match = new RegExp(`${origin.replace(/[.:/]/g, "\\$&")}/invitation/([\\w-]+)`).exec(mail?.text ?? "");
    return match?.[1];
  };
  const setPassword = (token: string, password: string) =>
    call(invitation.POST, "/api/auth/invitation", { body: { token, password } });

  it("puts the e-mail in the outbox; its link sets the password once; then login works", async () => {
    const created = await invite("invitee@example.com");
    expect(created.status).toBe(201);
    expect(success(created).debug).toContainEqual(expect.objectContaining({ level: "info", code: "invitation_sent" }));

    const mails = await OutboxMail.find({ to: "invitee@example.com" }).lean();
    expect(mails).toHaveLength(1);
    expect(mails[0].company?.toHexString()).toBe(t.companyId);
    expect(mails[0].subject).toMatch(/invited/i);
    expect(mails[0].html).toContain("/invitation/");
    const token = (await linkOf("invitee@example.com"))!;
    expect(token).toMatch(/^[\w-]{43}$/);

    // Only the token's hash is stored, and it expires after 72 hours.
    const stored = await Invitation.findOne({ tokenHash: hashToken(token) }).lean();
    expect(stored).not.toBeNull();
    expect(JSON.stringify(await Invitation.find().lean())).not.toContain(token);
    const hours = (stored!.expiresAt.getTime() - stored!.createdAt.getTime()) / 3_600_000;
    expect(hours).toBe(72);

    expect((await call(invitation.GET, `/api/auth/invitation?token=${token}`)).body).toEqual({
      valid: true,
      email: "invitee@example.com",
    });
    expect(
      (
        await call(login.POST, "/api/auth/login", {
          body: { email: "invitee@example.com", password: "the new password" },
        })
      ).status,
    ).toBe(401);

    const first = await setPassword(token, "the new password");
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ email: "invitee@example.com" });
    expect(await Credential.exists({ _id: success(created)._id })).not.toBeNull();

    const second = await setPassword(token, "another password");
    expect(second.status).toBe(404);
    expect(failure(second).code).toBe("not_found");
    expect((await call(invitation.GET, `/api/auth/invitation?token=${token}`)).body).toEqual({ valid: false });

    const signedIn = await call(login.POST, "/api/auth/login", {
      body: { email: "invitee@example.com", password: "the new password" },
    });
    expect(signedIn.status).toBe(200);
    expect(
      (
        await call(login.POST, "/api/auth/login", {
          body: { email: "invitee@example.com", password: "another password" },
        })
      ).status,
    ).toBe(401);
  });

  it("links to PUBLIC_URL whatever Host or X-Forwarded-Host the request came with", async () => {
    expect(loadConfig().publicUrl).toMatch(/^http:\/\/localhost:\d+$/);
    process.env.PUBLIC_URL = "https://users.example.com/";
    try {
      const created = await call(users.POST, "/v2/users?notifyEmail=true", {
        token: t.adminToken,
        admin: true,
        headers: { host: "attacker.example", "x-forwarded-host": "attacker.example", "x-forwarded-proto": "http" },
        body: { email: "proxied@example.com", accessRoles: [t.memberRoleId] },
      });
      expect(created.status).toBe(201);
      const mail = await OutboxMail.findOne({ to: "proxied@example.com" }).lean();
      expect(mail?.text).toMatch(/https:\/\/users\.example\.com\/invitation\/[\w-]{43}\n/);
      expect(mail?.html).toContain('href="https://users.example.com/invitation/');
      expect(`${mail?.text}${mail?.html}`).not.toContain("attacker");
      expect(await linkOf("proxied@example.com", "https://users.example.com")).toMatch(/^[\w-]{43}$/);
    } finally {
      delete process.env.PUBLIC_URL;
    }
  });

  it("is used once also under concurrent attempts", async () => {
    await invite("racer@example.com");
    const token = (await linkOf("racer@example.com"))!;
    const answers = await Promise.all([
      setPassword(token, "password one"),
      setPassword(token, "password two"),
      setPassword(token, "password three"),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 404, 404]);
  });

  it("expires after 72 hours", async () => {
    await invite("late@example.com");
    const token = (await linkOf("late@example.com"))!;
    await Invitation.updateOne({ tokenHash: hashToken(token) }, { $set: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await call(invitation.GET, `/api/auth/invitation?token=${token}`)).body).toEqual({ valid: false });
    expect((await setPassword(token, "too late password")).status).toBe(404);
  });

  it("refuses an unknown token and a short password", async () => {
    expect((await setPassword("made-up-token", "long enough password")).status).toBe(404);
    await invite("short@example.com");
    const token = (await linkOf("short@example.com"))!;
    const response = await setPassword(token, "short");
    expect(response.status).toBe(400);
    expect(failure(response).details![0].path).toBe("password");
    expect(success(await call(invitation.GET, `/api/auth/invitation?token=${token}`), InvitationStatus).valid).toBe(
      true,
    );
  });

  it("sends nothing when a password is given (debug warning), or without notifyEmail", async () => {
    const withPassword = await invite("haspw@example.com", { password: "already chosen" });
    expect(withPassword.status).toBe(201);
    expect(success(withPassword).debug).toContainEqual(
      expect.objectContaining({ level: "warning", code: "notify_email_ignored", path: "notifyEmail" }),
    );
    expect(await OutboxMail.countDocuments({ to: "haspw@example.com" })).toBe(0);
    await call(users.POST, "/v2/users", {
      token: t.adminToken,
      admin: true,
      body: { email: "quiet@example.com", accessRoles: [t.memberRoleId] },
    });
    expect(await OutboxMail.countDocuments({ to: "quiet@example.com" })).toBe(0);
  });

  it("refuses a malformed notifyEmail", async () => {
    const response = await call(users.POST, "/v2/users?notifyEmail=yes", {
      token: t.adminToken,
      admin: true,
      body: { email: "maybe@example.com", accessRoles: [t.memberRoleId] },
    });
    expect(response.status).toBe(400);
    expect(failure(response).details![0].path).toBe("notifyEmail");
  });
});
