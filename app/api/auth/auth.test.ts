import * as user from "@/app/v2/users/[id]/route";
import * as me from "@/app/v2/users/me/route";
import { loadConfig } from "@/lib/base/config";
import { oid } from "@/lib/kernel/ids";
import { AccessTokenResponse } from "@/lib/resources/auth/schemas";
import { signingKey } from "@/lib/resources/auth/secret";
import { createApiToken, verifyAccessToken } from "@/lib/resources/auth/service";
import { hashPassword } from "@/lib/resources/credentials/passwords";
import { Session, storePasswordHash } from "@/lib/resources/credentials/repository";
import { User } from "@/lib/resources/users/repository";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, createTenant, failure, success, type Tenant } from "@/lib/tools/testing/http";
import { SignJWT } from "jose";
import { beforeAll, describe, expect, it, onTestFinished, vi } from "vitest";
import * as login from "./login/route";
import * as logout from "./logout/route";
import * as token from "./token/route";

describe("authentication", () => {
  useTestDatabase();
  let t: Tenant;
  const password = "a long enough password";

  beforeAll(async () => {
    t = await createTenant("Auth");
    await storePasswordHash(oid(t.memberId), await hashPassword(password));
  });

  const memberEmail = async () => (await User.findById(t.memberId).lean())!.email;
  const signIn = async (email: string, pw: string, headers: Record<string, string> = {}) =>
    call(login.POST, "/api/auth/login", { body: { email, password: pw }, headers });
  const cookieOf = (setCookie: string | null) => setCookie!.split(";")[0];
  const whoAmI = (accessToken: string) => call(me.GET, "/v2/users/me", { token: accessToken });

  describe("POST /api/auth/login", () => {
    it("answers an access token and sets an httpOnly SameSite=Strict session cookie", async () => {
      const response = await signIn((await memberEmail()).toUpperCase(), password);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ accessToken: expect.any(String), expiresAt: expect.stringMatching(/\.000Z$/) });
      const expiresIn = Date.parse(success(response).expiresAt) - Date.now();
      expect(expiresIn).toBeGreaterThan(10 * 60_000);
      expect(expiresIn).toBeLessThanOrEqual(15 * 60_000);
      const cookie = response.headers.get("set-cookie")!;
      expect(cookie).toMatch(/^session=[\w-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=\d+$/);
      expect(success(await whoAmI(success(response).accessToken))._id).toBe(t.memberId);
      const [header, payload] = success(response)
        .accessToken.split(".")
        .slice(0, 2)
        .map((part: string) => JSON.parse(Buffer.from(part, "base64url").toString()));
      expect(header.alg).toBe("HS256");
      expect(payload).toEqual({
        sub: t.memberId,
        cid: t.companyId,
        sid: expect.any(String),
        iat: expect.any(Number),
        exp: expect.any(Number),
      });
    });

    it("marks the cookie Secure behind HTTPS", async () => {
      const response = await signIn(await memberEmail(), password, { "x-forwarded-proto": "https" });
      expect(response.headers.get("set-cookie")).toMatch(/; Secure$/);
    });

    it("answers the same 401 for a wrong password, an unknown e-mail and a user without password", async () => {
      const answers = await Promise.all([
        signIn(await memberEmail(), "wrong password!"),
        signIn("nobody@nowhere.io", password),
        signIn((await User.findById(t.adminId).lean())!.email, password),
      ]);
      for (const answer of answers) {
        expect(answer.status).toBe(401);
        expect(failure(answer).code).toBe("unauthorized");
        expect(failure(answer).message).toBe(failure(answers[0]).message);
        expect(answer.headers.get("set-cookie")).toBeNull();
      }
    });

    it.each([5_000, 100_000])("refuses a body nested %i levels deep with 400, not 500", async (levels) => {
      const response = await call(login.POST, "/api/auth/login", {
        rawBody: '{"email":'.repeat(levels) + "1" + "}".repeat(levels),
        headers: { "content-type": "application/json" },
      });
      expect(response.status).toBe(400);
      expect(failure(response).code).toBe("invalid_request");
    });

    it("refuses a malformed body with 400", async () => {
      const response = await call(login.POST, "/api/auth/login", { body: { email: "x@y.io" } });
      expect(response.status).toBe(400);
      expect(failure(response).details![0].path).toBe("password");
    });

    it("throttles failed attempts per e-mail and address (429 with Retry-After), even for the right password", async () => {
      const target = await User.collection.insertOne({
        email: "throttled@auth.io",
        companies: [{ companyId: oid(t.companyId), hierarchy: { boss: [], peers: [], subordinate: [] } }],
        isActive: true,
        accessRoles: [],
      } as never);
      await storePasswordHash(target.insertedId, await hashPassword(password));
      for (let i = 0; i < 10; i++) expect((await signIn("throttled@auth.io", `wrong ${i}`)).status).toBe(401);
      const blocked = await signIn("throttled@auth.io", password);
      expect(blocked.status).toBe(429);
      expect(failure(blocked).code).toBe("rate_limited");
      expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
      expect((await signIn(await memberEmail(), password)).status).toBe(200);
    });
  });

  describe("sign-in throttling", () => {
    let n = 0;
    /** A user of its own with the known password, so that no test spends another's budget. */
    const newUser = async () => {
      const email = `throttle-${++n}-${Date.now()}@auth.io`;
      const created = await User.collection.insertOne({
        email,
        companies: [{ companyId: oid(t.companyId), hierarchy: { boss: [], peers: [], subordinate: [] } }],
        isActive: true,
        accessRoles: [],
      } as never);
      await storePasswordHash(created.insertedId, await hashPassword(password));
      return email;
    };
    const from = (address: string) => ({ "x-forwarded-for": address });
    const statuses = (answers: { status: number }[]) => {
      const counts: Record<number, number> = {};
      for (const { status } of answers) counts[status] = (counts[status] ?? 0) + 1;
      return counts;
    };

    it("lets the owner in from their own address after 10 wrong passwords from another", async () => {
      const email = await newUser();
      for (let i = 0; i < 10; i++) expect((await signIn(email, `wrong ${i}`, from("203.0.113.10"))).status).toBe(401);
      const blocked = await signIn(email, password, from("203.0.113.10"));
      expect(blocked.status).toBe(429);
      expect(failure(blocked).code).toBe("rate_limited");
      // Ten failures in this window: the next attempt comes when a tenth of them has slid out,
      // 90 s into the next 15-minute window; both headers say so.
      const retryAfter = Number(blocked.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThanOrEqual(90);
      expect(retryAfter).toBeLessThanOrEqual(990);
      expect(blocked.headers.get("ratelimit-reset")).toBe(String(retryAfter));
      expect(blocked.headers.get("ratelimit-limit")).toBe("10, 10;w=900");
      expect((await signIn(email, password, from("198.51.100.20"))).status).toBe(200);
    });

    it("evaluates no more than 10 of 100 parallel wrong passwords", async () => {
      const email = await newUser();
      const answers = await Promise.all(
        Array.from({ length: 100 }, (_, i) => signIn(email, `wrong ${i}`, from("203.0.113.11"))),
      );
      expect(statuses(answers)).toEqual({ 401: 10, 429: 90 });
    });

    it("allows one address 50 failures over all e-mails, then refuses it while others still get in", async () => {
      const emails = await Promise.all(Array.from({ length: 6 }, newUser));
      const answers = await Promise.all(
        emails.flatMap((email) =>
          Array.from({ length: 10 }, (_, i) => signIn(email, `wrong ${i}`, from("203.0.113.12"))),
        ),
      );
      expect(statuses(answers)).toEqual({ 401: 50, 429: 10 });
      const refused = await signIn(emails[5], password, from("203.0.113.12"));
      expect(refused.status).toBe(429);
      expect(refused.headers.get("ratelimit-limit")).toBe("50, 50;w=900");
      expect(refused.headers.get("ratelimit-reset")).toBe(refused.headers.get("retry-after"));
      expect((await signIn(emails[5], password, from("203.0.113.13"))).status).toBe(200);
    });

    it("forgets an address's failures for an e-mail once the right password comes from it", async () => {
      const email = await newUser();
      for (let i = 0; i < 9; i++) expect((await signIn(email, `wrong ${i}`, from("203.0.113.14"))).status).toBe(401);
      expect((await signIn(email, password, from("203.0.113.14"))).status).toBe(200);
      const again = await Promise.all(
        Array.from({ length: 11 }, (_, i) => signIn(email, `wrong again ${i}`, from("203.0.113.14"))),
      );
      expect(statuses(again)).toEqual({ 401: 10, 429: 1 });
    });

    it("counts the IPv6 addresses of one /64 as one address", async () => {
      const email = await newUser();
      const answers = await Promise.all(
        Array.from({ length: 11 }, (_, i) => signIn(email, `wrong ${i}`, from(`2001:db8:5:6::${i + 1}`))),
      );
      expect(statuses(answers)).toEqual({ 401: 10, 429: 1 });
    });
  });

  describe("refused bearer tokens", () => {
    /** The budget is per fixed minute: the clock stands a second into the next one, so no window ends mid-test. */
    const atStartOfAMinute = () => {
      const now = Date.now();
      vi.useFakeTimers({ toFake: ["Date"], now: now - (now % 60_000) + 61_000 });
      onTestFinished(() => void vi.useRealTimers());
    };

    it("are limited per client address: 429 after 30 a minute, while valid tokens from there still work", async () => {
      atStartOfAMinute();
      const forged = (address: string) =>
        call(me.GET, "/v2/users/me", { headers: { authorization: "Bearer not.a.jwt", "x-forwarded-for": address } });
      const answers = await Promise.all(Array.from({ length: 30 }, () => forged("203.0.113.20")));
      expect(answers.every((answer) => answer.status === 401)).toBe(true);
      const limited = await forged("203.0.113.20");
      expect(limited.status).toBe(429);
      expect(failure(limited).code).toBe("rate_limited");
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(Number(limited.headers.get("retry-after"))).toBeLessThanOrEqual(60);
      // The headers describe the budget that refused, and say when to come back once.
      expect(limited.headers.get("ratelimit-reset")).toBe(limited.headers.get("retry-after"));
      expect(limited.headers.get("ratelimit-limit")).toBe("30, 30;w=60");
      expect(limited.headers.get("ratelimit-remaining")).toBe("0");
      const tampered = await call(me.GET, "/v2/users/me", {
        token: `${t.memberToken.slice(0, -4)}AAAA`,
        headers: { "x-forwarded-for": "203.0.113.20" },
      });
      expect(tampered.status).toBe(429);
      expect(
        (await call(me.GET, "/v2/users/me", { token: t.memberToken, headers: { "x-forwarded-for": "203.0.113.20" } }))
          .status,
      ).toBe(200);
      expect((await forged("203.0.113.21")).status).toBe(401);
    });

    it("count session cookies that name no session too", async () => {
      atStartOfAMinute();
      const attempt = () =>
        call(token.POST, "/api/auth/token", {
          method: "POST",
          headers: { cookie: "session=forged", "x-forwarded-for": "203.0.113.22" },
        });
      for (let i = 0; i < 30; i++) expect((await attempt()).status).toBe(401);
      const limited = await attempt();
      expect(limited.status).toBe(429);
      expect(limited.headers.get("ratelimit-reset")).toBe(limited.headers.get("retry-after"));
    });
  });

  describe("sessions: /api/auth/token and /api/auth/logout", () => {
    it("gives fresh access tokens for the cookie; logout revokes the session and its tokens", async () => {
      const signedIn = await signIn(await memberEmail(), password);
      const cookie = cookieOf(signedIn.headers.get("set-cookie"));
      const refreshed = await call(token.POST, "/api/auth/token", { method: "POST", headers: { cookie } });
      expect(refreshed.status).toBe(200);
      expect((await whoAmI(success(refreshed, AccessTokenResponse).accessToken)).status).toBe(200);

      const out = await call(logout.POST, "/api/auth/logout", { method: "POST", headers: { cookie } });
      expect(out.status).toBe(204);
      expect(out.headers.get("set-cookie")).toMatch(/^session=; Path=\/; HttpOnly; SameSite=Strict; Max-Age=0/);

      for (const accessToken of [
        success(signedIn, AccessTokenResponse).accessToken,
        success(refreshed, AccessTokenResponse).accessToken,
      ]) {
        const revoked = await whoAmI(accessToken);
        expect(revoked.status).toBe(401);
        expect(failure(revoked).code).toBe("unauthorized");
      }
      expect((await call(token.POST, "/api/auth/token", { method: "POST", headers: { cookie } })).status).toBe(401);
    });

    it.each([
      ["Sec-Fetch-Site: cross-site", { "sec-fetch-site": "cross-site" }],
      ["Sec-Fetch-Site: same-site", { "sec-fetch-site": "same-site", origin: "http://localhost" }],
      ["an Origin of another host", { origin: "https://evil.example" }],
      ["an Origin of another port", { origin: "http://localhost:8080" }],
      ["Origin: null", { origin: "null" }],
      // The request's own Host is no authority (a proxy rewrites it, a client forges it): PUBLIC_URL is.
      ["the request's own Origin when PUBLIC_URL is another", { origin: "http://localhost" }],
      ["PUBLIC_URL's host with another scheme", { origin: loadConfig().publicUrl.replace(/^http:/, "https:") }],
    ])("refuses %s with 403 on token, logout and sign-in, and the session goes on", async (_, crossSite) => {
      const signedIn = await signIn(await memberEmail(), password);
      const cookie = cookieOf(signedIn.headers.get("set-cookie"));
      for (const [handler, path] of [
        [token.POST, "/api/auth/token"],
        [logout.POST, "/api/auth/logout"],
      ] as const) {
        const refused = await call(handler, path, { method: "POST", headers: { cookie, ...crossSite } });
        expect(refused.status, path).toBe(403);
        expect(failure(refused).code).toBe("forbidden");
        expect(refused.headers.get("set-cookie")).toBeNull();
      }
      const signInRefused = await signIn(await memberEmail(), password, crossSite);
      expect(signInRefused.status).toBe(403);
      expect(failure(signInRefused).code).toBe("forbidden");
      expect(signInRefused.headers.get("set-cookie")).toBeNull();
      expect((await call(token.POST, "/api/auth/token", { method: "POST", headers: { cookie } })).status).toBe(200);
    });

    it.each([
      ["Sec-Fetch-Site: same-origin", { "sec-fetch-site": "same-origin", origin: "http://localhost" }],
      ["Sec-Fetch-Site: none", { "sec-fetch-site": "none" }],
      ["PUBLIC_URL's Origin", { origin: loadConfig().publicUrl }],
      [
        "PUBLIC_URL's Origin through a proxy under another Host",
        { origin: loadConfig().publicUrl, host: "10.0.0.7:3000", "x-forwarded-host": "internal.example" },
      ],
      ["neither header", {}],
    ])("accepts %s", async (_, sameSite) => {
      const signedIn = await signIn(await memberEmail(), password, sameSite);
      expect(signedIn.status).toBe(200);
      const cookie = cookieOf(signedIn.headers.get("set-cookie"));
      expect(
        (await call(token.POST, "/api/auth/token", { method: "POST", headers: { cookie, ...sameSite } })).status,
      ).toBe(200);
      expect(
        (await call(logout.POST, "/api/auth/logout", { method: "POST", headers: { cookie, ...sameSite } })).status,
      ).toBe(204);
    });

    it("answers 401 without a cookie or with an unknown one", async () => {
      expect((await call(token.POST, "/api/auth/token", { method: "POST" })).status).toBe(401);
      expect(
        (await call(token.POST, "/api/auth/token", { method: "POST", headers: { cookie: "session=forged" } })).status,
      ).toBe(401);
    });
  });

  describe("bearer tokens on /v2", () => {
    const sign = async (claims: Record<string, unknown>, exp: number | string, key?: Uint8Array) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: "HS256" })
        .setSubject(t.memberId)
        .setIssuedAt()
        .setExpirationTime(exp)
        .sign(key ?? (await signingKey()));
    const sessionId = async () => (await Session.findOne({ userId: oid(t.memberId) }).lean())!._id.toHexString();

    it.each([
      ["no Authorization header", undefined],
      ["another scheme", "Basic dXNlcjpwYXNz"],
      ["a bearer without token", "Bearer "],
      ["garbage", "Bearer not.a.jwt"],
      [
        "an unsigned token",
        `Bearer ${Buffer.from('{"alg":"none"}').toString("base64url")}.${Buffer.from('{"sub":"x"}').toString("base64url")}.`,
      ],
    ])("answers 401 unauthorized for %s", async (_, authorization) => {
      const response = await call(me.GET, "/v2/users/me", { headers: authorization ? { authorization } : {} });
      expect(response.status).toBe(401);
      expect(failure(response).code).toBe("unauthorized");
    });

    it("answers 401 for an expired token, a token signed with another key, and a token of no session", async () => {
      const sid = await sessionId();
      const expired = await sign({ cid: t.companyId, sid }, Math.floor(Date.now() / 1000) - 10);
      const response = await whoAmI(expired);
      expect(response.status).toBe(401);
      expect(failure(response).message).toMatch(/expired/);
      const foreign = await sign({ cid: t.companyId, sid }, "1h", new TextEncoder().encode("x".repeat(40)));
      expect((await whoAmI(foreign)).status).toBe(401);
      const noSession = await sign({ cid: t.companyId, sid: "0123456789abcdef01234567" }, "1h");
      expect((await whoAmI(noSession)).status).toBe(401);
      const badClaims = await sign({ cid: "x", sid }, "1h");
      expect((await whoAmI(badClaims)).status).toBe(401);
      const valid = await sign({ cid: t.companyId, sid }, "1h");
      expect((await whoAmI(valid)).status).toBe(200);
    });

    it("refuses a token it accepted before once that token expires", async () => {
      const exp = Math.floor(Date.now() / 1000) + 60;
      const token = await sign({ cid: t.companyId, sid: await sessionId() }, exp);
      expect((await whoAmI(token)).status).toBe(200);
      await expect(verifyAccessToken(token, exp * 1000 - 1)).resolves.toMatchObject({ sub: t.memberId });
      await expect(verifyAccessToken(token, exp * 1000)).rejects.toMatchObject({
        code: "unauthorized",
        message: expect.stringMatching(/expired/),
      });
    });

    it("stops honouring Admin: true as soon as the user's admin role is taken away", async () => {
      const adminOf = await createTenant("Demoted");
      const demotedId = adminOf.memberId;
      const memberRoles = (await User.findById(demotedId).lean())!.accessRoles.map(String);
      const adminRoles = (await User.findById(adminOf.adminId).lean())!.accessRoles.map(String);
      const setRoles = (accessRoles: string[]) =>
        call(user.PATCH, `/v2/users/${demotedId}`, {
          method: "PATCH",
          token: adminOf.adminToken,
          admin: true,
          params: { id: demotedId },
          body: { accessRoles },
        });
      const asDemoted = () =>
        call(user.PATCH, `/v2/users/${adminOf.adminId}`, {
          method: "PATCH",
          token: adminOf.memberToken,
          admin: true,
          params: { id: adminOf.adminId },
          body: { phone: "5" },
        });
      expect((await setRoles(adminRoles)).status).toBe(200);
      expect((await asDemoted()).status).toBe(200);
      expect((await asDemoted()).status).toBe(200);
      expect((await setRoles(memberRoles)).status).toBe(200);
      expect(failure(await asDemoted()).code).toBe("forbidden");
    });

    it("answers 401 for the token of a deactivated user, and still after reactivation: only a new sign-in works again", async () => {
      const setActive = (isActive: boolean) =>
        call(user.PATCH, `/v2/users/${t.memberId}`, {
          method: "PATCH",
          token: t.adminToken,
          admin: true,
          params: { id: t.memberId },
          body: { isActive },
        });
      expect((await setActive(false)).status).toBe(200);
      expect((await whoAmI(t.memberToken)).status).toBe(401);
      expect((await signIn(await memberEmail(), password)).status).toBe(401);
      expect((await setActive(true)).status).toBe(200);
      // Deactivation ended the member's sessions (docs/security.md#passwords-and-tokens): the old token stays refused.
      expect((await whoAmI(t.memberToken)).status).toBe(401);
      const signedIn = await signIn(await memberEmail(), password);
      expect(signedIn.status).toBe(200);
      t.memberToken = (signedIn.body as { accessToken: string }).accessToken;
      expect((await whoAmI(t.memberToken)).status).toBe(200);
    });

    it("records lastRequestDate, at most once a minute", async () => {
      await User.collection.updateOne({ _id: oid(t.memberId) }, { $set: { lastRequestDate: null } });
      // A new session: its principal is not cached yet, so the cleared date is seen.
      const fresh = (await createApiToken(await memberEmail(), 600)).accessToken;
      await whoAmI(fresh);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const first = (await User.findById(t.memberId).lean())!.lastRequestDate;
      expect(first).toBeInstanceOf(Date);
      await whoAmI(fresh);
      await whoAmI(t.memberToken);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect((await User.findById(t.memberId).lean())!.lastRequestDate).toEqual(first);
      const shown = await whoAmI(fresh);
      expect(success(shown).lastRequestDate).toBe(first!.toISOString());
    });
  });
});
