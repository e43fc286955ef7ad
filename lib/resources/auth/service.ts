/**
 * Authentication (docs/api.md#tokens): access tokens (HS256 JWTs with `sub`, `cid`, `sid`, `iat`,
 * `exp`, and `jti` for API tokens), sign-in sessions behind an httpOnly cookie, API tokens for
 * external systems, and the principal every `/v2` request acts as. Every token is bound to a
 * session: deleting the session revokes the token (docs/security.md#passwords-and-tokens).
 */
import { ServiceError } from "@/lib/kernel/errors";
import { hashToken, newId, oid, secretToken, type ObjectId } from "@/lib/kernel/ids";
import type { Principal } from "@/lib/kernel/principal";
import { auditFailedSignIn, auditSignIn, auditSignOut } from "@/lib/resources/audit/service";
import { signingKey } from "@/lib/resources/auth/secret";
import { checkPassword } from "@/lib/resources/credentials/passwords";
import {
  deleteApiSession,
  deleteSessionByToken,
  findBrowserSession,
  findSession,
  insertSession,
} from "@/lib/resources/credentials/repository";
import {
  forgetPrincipals,
  principals,
  revokeSessions,
  type CachedPrincipal,
} from "@/lib/resources/credentials/sessions";
import { holdsAdminRole } from "@/lib/resources/reference/repository";
import {
  displayNameOf,
  findCompanyUser,
  findUserByEmail,
  findUserById,
  touchLastRequest,
} from "@/lib/resources/users/repository";
import { errors as joseErrors, jwtVerify, SignJWT } from "jose";
import { LRUCache } from "lru-cache";

/** Access tokens of a sign-in session are short-lived; `/api/auth/token` gives fresh ones. */
const BROWSER_TOKEN_TTL_SECONDS = 15 * 60;
const SESSION_TTL_SECONDS = 7 * 24 * 60 * 60;
const MAX_API_TOKEN_TTL_SECONDS = 366 * 24 * 60 * 60;
/** `lastRequestDate` is written at most this often per user (docs/api.md#tokens). */
const LAST_REQUEST_GRANULARITY_MS = 60_000;

export interface IssuedToken {
  accessToken: string;
  expiresAt: Date;
}

const unauthorized = (message: string) => new ServiceError("unauthorized", message);

/**
 * Signs an access token of a session. An API token also carries `jti`, its id (its session's id),
 * which is what `npm run token -- --revoke` takes.
 */
async function issueAccessToken(
  userId: ObjectId,
  companyId: ObjectId,
  sessionId: ObjectId,
  issuedAt: Date,
  expiresAt: Date,
  jti?: ObjectId,
): Promise<IssuedToken> {
  const jwt = new SignJWT({ cid: companyId.toHexString(), sid: sessionId.toHexString() });
  if (jti) jwt.setJti(jti.toHexString());
  const accessToken = await jwt
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(userId.toHexString())
    // The same clock reading as the expiry, so `exp - iat` is the lifetime asked for.
    .setIssuedAt(Math.floor(issuedAt.getTime() / 1000))
    .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
    .sign(await signingKey());
  return { accessToken, expiresAt: new Date(Math.floor(expiresAt.getTime() / 1000) * 1000) };
}

interface Claims {
  sub: string;
  cid: string;
  sid: string;
}

const HEX24 = /^[0-9a-f]{24}$/;

/**
 * Tokens already verified, with their expiry: a client sends one token for many requests, and
 * checking its HMAC each time was a measurable share of a request's work. The cache holds only
 * tokens whose signature and claims passed; expiry is still checked on every use, and revocation
 * is the principal's check (below), which this does not skip. The 10,000 most recently used are kept.
 */
const verified = new LRUCache<string, { claims: Claims; expiresAtMs: number }>({ max: 10_000 });

/** Checks signature, algorithm, expiry and claim shapes; any failure is `401`. */
export async function verifyAccessToken(token: string, now = Date.now()): Promise<Claims> {
  const hit = verified.get(token);
  if (hit) {
    if (now < hit.expiresAtMs) return hit.claims;
    verified.delete(token);
    throw unauthorized("The access token has expired.");
  }
  const checked = await verifySignedToken(token);
  verified.set(token, checked);
  return checked.claims;
}

async function verifySignedToken(token: string): Promise<{ claims: Claims; expiresAtMs: number }> {
  try {
    const { payload } = await jwtVerify(token, await signingKey(), {
      algorithms: ["HS256"],
      requiredClaims: ["sub", "exp", "iat"],
    });
    const { sub, cid, sid } = payload as Record<string, unknown>;
    if (
      typeof sub === "string" &&
      typeof cid === "string" &&
      typeof sid === "string" &&
      HEX24.test(sub) &&
      HEX24.test(cid) &&
      HEX24.test(sid)
    ) {
      return { claims: { sub, cid, sid }, expiresAtMs: payload.exp! * 1000 };
    }
    throw unauthorized("The access token is malformed.");
  } catch (error) {
    if (error instanceof ServiceError) throw error;
    if (error instanceof joseErrors.JWTExpired) throw unauthorized("The access token has expired.");
    throw unauthorized("The access token is not valid.");
  }
}

/**
 * The principal of a verified token: its session must still exist (revoking a token deletes its
 * session) and its user must still be an active member of the token's company. Also records the
 * user's `lastRequestDate`.
 */
export async function principalOf(claims: Claims, now = new Date()): Promise<Principal> {
  const cached = await principals.fetch(`${claims.sub}|${claims.sid}|${claims.cid}`, () => loadPrincipal(claims, now));
  if (cached.sessionExpiresAt <= now) throw unauthorized("The access token has been revoked.");
  if (!cached.lastRequestDate || now.getTime() - cached.lastRequestDate.getTime() >= LAST_REQUEST_GRANULARITY_MS) {
    cached.lastRequestDate = now;
    const since = new Date(now.getTime() - LAST_REQUEST_GRANULARITY_MS);
    // Not awaited: the request does not wait for bookkeeping. The filter makes concurrent
    // requests (and processes) write it once a minute.
    touchLastRequest(oid(claims.sub), now, since).catch(() => undefined);
  }
  return cached.principal;
}

async function loadPrincipal(claims: Claims, now: Date): Promise<CachedPrincipal> {
  const [session, user] = await Promise.all([
    findSession(claims.sid),
    findCompanyUser(oid(claims.cid), oid(claims.sub), {
      companies: 1,
      accessRoles: 1,
      lastRequestDate: 1,
      name: 1,
      email: 1,
    }),
  ]);
  if (
    !session ||
    session.expiresAt <= now ||
    !session.userId.equals(claims.sub) ||
    !session.companyId.equals(claims.cid)
  ) {
    throw unauthorized("The access token has been revoked.");
  }
  if (!user) throw unauthorized("The access token names no user of its company.");
  if (!activeIn(user.companies, claims.cid)) throw unauthorized("The account is deactivated.");
  return {
    principal: {
      userId: claims.sub,
      companyId: claims.cid,
      sessionId: claims.sid,
      accessRoles: user.accessRoles,
      name: displayNameOf(user),
    },
    sessionExpiresAt: session.expiresAt,
    lastRequestDate: user.lastRequestDate ?? null,
  };
}

/**
 * The admin check of each principal, kept as long as the principal itself is cached: a write that
 * changes a user's roles, or a role's own `isAdmin`, forgets the principals, and with them this
 * answer.
 */
const adminChecks = new WeakMap<Principal, Promise<boolean>>();

/** Whether the principal holds an access role of its company with `isAdmin: true`. */
export function isAdmin(principal: Principal): Promise<boolean> {
  let check = adminChecks.get(principal);
  if (!check) {
    check =
      principal.accessRoles.length === 0
        ? Promise.resolve(false)
        : holdsAdminRole(principal.accessRoles, oid(principal.companyId));
    // A failed check is not kept: the next request asks again.
    check.catch(() => adminChecks.delete(principal));
    adminChecks.set(principal, check);
  }
  return check;
}

// ---------------------------------------------------------------------------------------------
// Sign-in sessions (the cookie) and API tokens.

export interface SignIn extends IssuedToken {
  sessionToken: string;
  sessionExpiresAt: Date;
}

const WRONG_CREDENTIALS = "Wrong e-mail or password.";

/**
 * Signs in with e-mail and password: a new session (its token goes into the cookie) and a first
 * access token. Unknown e-mail, wrong password, no password yet and a deactivated account all get
 * the same answer.
 */
export async function login(email: string, password: string, companyId?: string): Promise<SignIn> {
  const user = await findUserByEmail(email.toLowerCase(), { companies: 1, name: 1, email: 1 });
  const valid = await checkPassword(user?._id ?? null, password);
  const membership = user ? activeMembership(user.companies, companyId) : undefined;
  if (!user || !valid || !membership) {
    // Only a known account's companies keep the attempt; an unknown e-mail belongs to no company (docs/api.md#audit-log).
    if (user) auditFailedSignIn(email.toLowerCase(), user, companyId);
    throw unauthorized(WRONG_CREDENTIALS);
  }

  const now = new Date();
  const { token, hash } = secretToken();
  const sessionExpiresAt = new Date(now.getTime() + SESSION_TTL_SECONDS * 1000);
  const sessionId = await insertSession({
    kind: "browser",
    tokenHash: hash,
    userId: user._id,
    companyId: membership.companyId,
    createdAt: now,
    expiresAt: sessionExpiresAt,
  });
  const issued = await issueAccessToken(
    user._id,
    membership.companyId,
    sessionId,
    now,
    accessTokenExpiry(now, sessionExpiresAt),
  );
  await auditSignIn({ _id: user._id, name: displayNameOf(user) }, membership.companyId);
  return { ...issued, sessionToken: token, sessionExpiresAt };
}

/** A fresh access token for the session of a cookie. */
export async function refresh(sessionToken: string): Promise<IssuedToken> {
  const now = new Date();
  const session = await findBrowserSession(hashToken(sessionToken));
  if (!session || session.expiresAt <= now) throw unauthorized("No session: sign in again.");
  const user = await findCompanyUser(session.companyId, session.userId, { companies: 1 });
  if (!user || !activeIn(user.companies, session.companyId)) throw unauthorized("No session: sign in again.");
  return issueAccessToken(
    session.userId,
    session.companyId,
    session._id,
    now,
    accessTokenExpiry(now, session.expiresAt),
  );
}

/** Ends the session of a cookie; the access tokens it issued stop working at once. */
export async function logout(sessionToken: string): Promise<void> {
  const session = await deleteSessionByToken(hashToken(sessionToken));
  if (!session) return;
  forgetPrincipals(session.userId.toHexString());
  const user = await findUserById(session.userId, { name: 1, email: 1 });
  await auditSignOut({ _id: session.userId, name: user ? displayNameOf(user) : "Unknown user" }, session.companyId);
}

interface Membership {
  companyId: ObjectId;
  isActive?: boolean | null;
}

/** Whether the user is an active member of the company (a membership without the flag is active). */
function activeIn(companies: Membership[], companyId: string | ObjectId): boolean {
  return companies.some((entry) => entry.companyId.equals(companyId) && entry.isActive !== false);
}

/** The membership to sign in to: the company asked for, else the first where the user is active. */
function activeMembership<M extends Membership>(companies: M[], companyId?: string): M | undefined {
  return companies.find(
    (entry) => entry.isActive !== false && (companyId === undefined || entry.companyId.equals(companyId)),
  );
}

function accessTokenExpiry(now: Date, sessionExpiresAt: Date): Date {
  return new Date(Math.min(now.getTime() + BROWSER_TOKEN_TTL_SECONDS * 1000, sessionExpiresAt.getTime()));
}

/**
 * A long-lived access token for an external system (the `token` CLI), backed by a session of its
 * own so it can be revoked by deleting that session.
 */
export async function createApiToken(
  email: string,
  ttlSeconds: number,
  companyId?: string,
): Promise<IssuedToken & { id: string; userId: string; companyId: string }> {
  if (!(ttlSeconds > 0 && ttlSeconds <= MAX_API_TOKEN_TTL_SECONDS)) {
    throw new ServiceError(
      "invalid_request",
      `The lifetime must be between 1 second and ${MAX_API_TOKEN_TTL_SECONDS / 86_400} days.`,
    );
  }
  const user = await findUserByEmail(email.trim().toLowerCase(), { companies: 1 });
  if (!user) throw new ServiceError("not_found", `No user has the e-mail ${email}.`);
  const member = companyId ? user.companies.find((entry) => entry.companyId.equals(companyId)) : user.companies[0];
  if (!member) {
    throw new ServiceError(
      "not_found",
      companyId ? `${email} is not a member of company ${companyId}.` : `${email} belongs to no company.`,
    );
  }
  const membership = activeMembership(user.companies, companyId);
  if (!membership)
    throw new ServiceError(
      "invalid_request",
      `The user ${email} is deactivated${companyId ? ` in company ${companyId}` : ""}.`,
    );
  const now = new Date();
  const expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
  const sessionId = await insertSession({
    _id: newId(),
    kind: "api",
    tokenHash: null,
    userId: user._id,
    companyId: membership.companyId,
    createdAt: now,
    expiresAt,
  });
  const issued = await issueAccessToken(user._id, membership.companyId, sessionId, now, expiresAt, sessionId);
  return {
    ...issued,
    id: sessionId.toHexString(),
    userId: user._id.toHexString(),
    companyId: membership.companyId.toHexString(),
  };
}

/**
 * Revokes one API token, named by its id (the `jti` printed when it was issued) or by the token
 * itself (its signature is checked, its expiry is not). Answers whether a token was revoked.
 */
export async function revokeApiToken(idOrToken: string): Promise<boolean> {
  const id = HEX24.test(idOrToken.toLowerCase()) ? idOrToken.toLowerCase() : await tokenSession(idOrToken);
  const session = await deleteApiSession(oid(id));
  if (session) forgetPrincipals(session.userId.toHexString());
  return session !== null;
}

async function tokenSession(token: string): Promise<string> {
  let payload: Record<string, unknown> | undefined;
  try {
    ({ payload } = await jwtVerify(token, await signingKey(), { algorithms: ["HS256"] }));
  } catch (error) {
    // An expired token is still this service's (its signature was checked): revoking it is harmless.
    if (error instanceof joseErrors.JWTExpired) payload = error.payload;
  }
  if (typeof payload?.sid === "string" && HEX24.test(payload.sid)) return payload.sid;
  throw new ServiceError("invalid_request", "Give a token id (24 hex digits) or a token issued by this service.");
}

/** Revokes every session and token of an account (sign-in sessions and API tokens alike). */
export async function revokeAllTokens(email: string): Promise<number> {
  const user = await findUserByEmail(email.trim().toLowerCase(), { _id: 1 });
  if (!user) throw new ServiceError("not_found", `No user has the e-mail ${email}.`);
  return revokeSessions(user._id);
}

/** What a token says about itself, checked by signature and expiry only (no database). */
export async function introspect(token: string): Promise<{ userId: string; companyId: string; expiresAt: string }> {
  const claims = await verifyAccessToken(token);
  const [, payload] = token.split(".");
  const { exp } = JSON.parse(Buffer.from(payload, "base64url").toString()) as { exp: number };
  return { userId: claims.sub, companyId: claims.cid, expiresAt: new Date(exp * 1000).toISOString() };
}
