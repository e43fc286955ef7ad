/**
 * API keys (docs/api.md#api-keys): creating, listing and revoking them, and the principal a key
 * stands for. A key acts for its company within its scopes; its principal is cached like a
 * token's, so a revocation or expiry is seen by this process at once and by every other server
 * process within `PRINCIPAL_TTL_MS`.
 */
import type { Scope } from "@/lib/base/schemas/scopes";
import { newCache } from "@/lib/kernel/cache";
import { type ListOrder, listScope, pageFields, pageOf, pageRead } from "@/lib/kernel/cursor";
import { inTransaction } from "@/lib/kernel/db/transaction";
import { notFound, ServiceError } from "@/lib/kernel/errors";
import { hashToken, type ObjectId, oid } from "@/lib/kernel/ids";
import type { Principal } from "@/lib/kernel/principal";
import { insufficientScope } from "@/lib/kernel/scopes";
import { PRINCIPAL_TTL_MS } from "@/lib/resources/credentials/sessions";
import { recordChange } from "@/lib/resources/events/service";
import { userNamesAndEmails } from "@/lib/resources/users/repository";
import { randomBytes } from "node:crypto";
import {
  type ApiKeyList,
  type ApiKeyRecord,
  type CreateApiKeyBody,
  type CreatedApiKey,
  KEY_PREFIX,
  type ListApiKeysQuery,
} from "./contract";
import {
  type ApiKeyDoc,
  countApiKeys,
  findApiKeys,
  findKeyNames,
  findLiveKeysMadeBy,
  findUsableApiKey,
  insertApiKey,
  newDoc,
  revokeApiKeyDoc,
  touchApiKey,
} from "./repository";

/** Characters of the key shown in lists: `usk_` and 8 of the secret (48 of its 256 bits). */
const PREFIX_LENGTH = KEY_PREFIX.length + 8;
/** `lastUsedAt` is written at most this often per key. */
const LAST_USED_GRANULARITY_MS = 60_000;

/** Whether a bearer credential is an API key (else it is an access token). */
export const isApiKey = (credential: string): boolean => credential.startsWith(KEY_PREFIX);

/** Newest first, `_id` breaking ties. */
const KEY_ORDER: ListOrder = {
  fields: [
    { name: "createdAt", type: "date" },
    { name: "_id", type: "objectId" },
  ],
  direction: -1,
};

export async function listApiKeys(auth: Principal, query: ListApiKeysQuery): Promise<ApiKeyList> {
  const company = oid(auth.companyId);
  const scope = listScope(auth.companyId, "/v2/api-keys", query);
  const read = await pageRead(query, KEY_ORDER, scope);
  const [docs, counter] = await Promise.all([
    findApiKeys(company, {
      sort: read.sort as Record<string, 1 | -1>,
      skip: read.skip,
      limit: read.limit,
      after: read.after,
    }),
    query.count ? countApiKeys(company) : undefined,
  ]);
  const page = await pageOf(docs, query, KEY_ORDER, scope, (doc) => [doc.createdAt, doc._id]);
  return {
    data: {
      apiKeys: await toRecords(page.items),
      ...pageFields(query, page, counter),
    },
  };
}

export async function createApiKey(auth: Principal, body: CreateApiKeyBody, now = new Date()): Promise<CreatedApiKey> {
  // A key may not mint a key that can do more than it can.
  const beyond = auth.apiKey ? body.scopes.find((scope) => !auth.apiKey!.scopes.includes(scope)) : undefined;
  if (beyond)
    throw insufficientScope(beyond, `An API key can create keys only with scopes it holds itself; it lacks ${beyond}.`);
  if (body.expiresAt && body.expiresAt <= now) {
    throw new ServiceError("invalid_request", "The request is not valid.", [
      { path: "expiresAt", message: "must be in the future" },
    ]);
  }
  const key = KEY_PREFIX + randomBytes(32).toString("base64url");
  const doc = newDoc({
    company: oid(auth.companyId),
    name: body.name,
    scopes: body.scopes,
    prefix: key.slice(0, PREFIX_LENGTH),
    keyHash: hashToken(key),
    createdBy: oid(auth.userId),
    createdAt: now,
    expiresAt: body.expiresAt ?? null,
  });
  const [record] = await toRecords([doc]);
  // The key and its event commit together (docs/architecture.md#events); the event never holds the key.
  await inTransaction(async () => {
    await insertApiKey(doc);
    await recordChange({ company: doc.company, resource: "apiKey", id: doc._id, action: "created", after: record });
  });
  return { ...record, key };
}

/** A revoked key is gone from every list: its event is `apiKey.deleted`. */
export async function revokeApiKey(auth: Principal, id: string, now = new Date()): Promise<void> {
  if (!(await revokeKey(oid(auth.companyId), oid(id), now))) throw notFound("API key");
}

/** Revokes one key of the company with its event; whether there was one to revoke. */
async function revokeKey(company: ObjectId, id: ObjectId, now: Date): Promise<boolean> {
  const revoked = await inTransaction(async () => {
    const doc = await revokeApiKeyDoc(company, id, now);
    if (doc)
      await recordChange({
        company,
        resource: "apiKey",
        id: doc._id,
        action: "deleted",
        before: (await toRecords([doc]))[0],
      });
    return doc;
  });
  if (revoked) keys.clear(revoked.keyHash);
  return revoked !== null;
}

/**
 * Revokes the company's keys `userId` created, and those these keys created in turn
 * (docs/security.md#scopes): what an admin who is deactivated, or loses the admin role, leaves
 * behind. Answers how many were revoked.
 */
export async function revokeKeysMadeBy(company: ObjectId, userId: ObjectId, now = new Date()): Promise<number> {
  let creators = [userId];
  let count = 0;
  // A key only creates keys after it exists, so each round goes one generation down; the bound is a guard.
  for (let round = 0; round < 100 && creators.length > 0; round++) {
    const made = await findLiveKeysMadeBy(company, creators);
    for (const doc of made) if (await revokeKey(company, doc._id, now)) count++;
    creators = made.map((doc) => doc._id);
  }
  return count;
}

interface CachedKey {
  principal: Principal;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
}

/** Keys by their hash; a revocation elsewhere is seen once the entry expires. */
const keys = newCache<CachedKey, string>({ ttlMs: PRINCIPAL_TTL_MS, load: (_hash, key) => loadKey(key) });

const unauthorized = (message: string) => new ServiceError("unauthorized", message);

/** The principal of an API key; a key that is unknown, revoked or expired is `401`. Records `lastUsedAt`. */
export async function principalOfKey(key: string, now = new Date()): Promise<Principal> {
  const cached = await keys.fetch(hashToken(key), key);
  if (cached.expiresAt && cached.expiresAt <= now) throw unauthorized("The API key has expired.");
  if (!cached.lastUsedAt || now.getTime() - cached.lastUsedAt.getTime() >= LAST_USED_GRANULARITY_MS) {
    cached.lastUsedAt = now;
    // Not awaited, and written at most once a minute per key across processes (see touchApiKey).
    touchApiKey(oid(cached.principal.userId), now, new Date(now.getTime() - LAST_USED_GRANULARITY_MS)).catch(
      () => undefined,
    );
  }
  return cached.principal;
}

async function loadKey(key: string): Promise<CachedKey> {
  const doc = await findUsableApiKey(hashToken(key));
  if (!doc) throw unauthorized("The API key is not valid or has been revoked.");
  const id = doc._id.toHexString();
  return {
    principal: {
      userId: id,
      companyId: doc.company.toHexString(),
      sessionId: "",
      accessRoles: [],
      apiKey: { id, scopes: doc.scopes as Scope[] },
      name: doc.name,
    },
    expiresAt: doc.expiresAt ?? null,
    lastUsedAt: doc.lastUsedAt ?? null,
  };
}

/** The records of a company's keys, each naming who created it. */
async function toRecords(docs: ApiKeyDoc[]): Promise<ApiKeyRecord[]> {
  if (docs.length === 0) return [];
  const company = docs[0].company;
  const creators = [
    ...new Map(
      docs.flatMap((doc) => (doc.createdBy ? [[doc.createdBy.toHexString(), doc.createdBy] as const] : [])),
    ).values(),
  ];
  const [users, keyNames] = await Promise.all([userNamesAndEmails(company, creators), findKeyNames(company, creators)]);
  const byKey = new Map(keyNames.map((key) => [key._id.toHexString(), key.name]));
  return docs.map((doc) => {
    const creator = doc.createdBy?.toHexString();
    const user = creator ? users.get(creator) : undefined;
    const createdBy: ApiKeyRecord["createdBy"] = !creator
      ? null
      : byKey.has(creator)
        ? { _id: creator, type: "apiKey", name: byKey.get(creator)!, email: null }
        : { _id: creator, type: "user", name: user?.name ?? null, email: user?.email ?? null };
    return { ...toRecord(doc), createdBy };
  });
}

function toRecord(doc: ApiKeyDoc): Omit<ApiKeyRecord, "createdBy"> {
  return {
    _id: doc._id.toHexString(),
    name: doc.name,
    scopes: doc.scopes as Scope[],
    prefix: doc.prefix,
    createdAt: doc.createdAt.toISOString(),
    expiresAt: doc.expiresAt?.toISOString() ?? null,
    lastUsedAt: doc.lastUsedAt?.toISOString() ?? null,
  };
}
