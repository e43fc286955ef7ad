/**
 * Companies (tenants): creating one with its `Admin` and `Member` roles and an admin user, and the
 * bootstrap of an empty database (docs/api.md#companies-and-bootstrap).
 */
import { loadConfig } from "@/lib/base/config";
import { isDuplicateKeyError } from "@/lib/kernel/errors";
import { newId, type ObjectId } from "@/lib/kernel/ids";
import { log } from "@/lib/kernel/log";
import type { CompanyRecord } from "@/lib/resources/companies/contract";
import {
  anyCompany,
  claimBootstrapMarker,
  type CompanyDoc,
  findCompanies,
  finishBootstrapMarker,
  insertCompany,
  insertCompanyOnce,
  markBootstrappedBefore,
  newDoc,
  readBootstrapMarker,
} from "@/lib/resources/companies/repository";
import { hashPassword } from "@/lib/resources/credentials/passwords";
import { hasPassword, storeFirstPasswordHash } from "@/lib/resources/credentials/repository";
import { upsertRole } from "@/lib/resources/reference/repository";
import {
  addMembership,
  emptyMembership,
  findUserByEmail,
  insertUser,
  newDoc as newUserDoc,
} from "@/lib/resources/users/repository";
import { usersChanged } from "@/lib/resources/users/service";
import { randomBytes } from "node:crypto";

const DEFAULT_COMPANY_NAME = "Default company";

export interface CreatedCompany {
  company: CompanyRecord;
  adminRoleId: string;
  memberRoleId: string;
  adminUserId: string;
  /** The admin already had an account (another company's): it joined, its password unchanged. */
  adminExisted: boolean;
}

/**
 * A new company with its roles and admin. An existing e-mail joins the new company as its admin
 * (a user can belong to several companies) and keeps its password.
 */
export async function createCompany(input: {
  name: string;
  adminEmail: string;
  adminPassword?: string;
}): Promise<CreatedCompany> {
  const now = new Date();
  const companyId = newId();
  const company = newDoc({ _id: companyId, name: input.name, createdAt: now });
  await insertCompany(company);
  const { adminRoleId, memberRoleId } = await ensureRoles(companyId, now);
  const { userId, existed } = await ensureAdmin(companyId, adminRoleId, input.adminEmail, now);
  if (!existed && input.adminPassword !== undefined) {
    await storeFirstPasswordHash(userId, await hashPassword(input.adminPassword), now);
  }
  return {
    company: toCompanyRecord(company),
    adminRoleId: adminRoleId.toHexString(),
    memberRoleId: memberRoleId.toHexString(),
    adminUserId: userId.toHexString(),
    adminExisted: existed,
  };
}

export async function listCompanies(): Promise<CompanyRecord[]> {
  return (await findCompanies()).map(toCompanyRecord);
}

const toCompanyRecord = (company: CompanyDoc): CompanyRecord => ({
  _id: company._id.toHexString(),
  name: company.name,
  createdAt: company.createdAt.toISOString(),
  modifiedAt: company.modifiedAt.toISOString(),
});

/** Upserts under a unique index can race: the loser's insert fails and a retry finds the winner's. */
async function upsertRetrying<T>(upsert: () => Promise<T>): Promise<T> {
  try {
    return await upsert();
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
    return upsert();
  }
}

async function ensureRoles(companyId: ObjectId, now: Date): Promise<{ adminRoleId: ObjectId; memberRoleId: ObjectId }> {
  const role = (name: string, isAdmin: boolean) => upsertRetrying(() => upsertRole(companyId, name, isAdmin, now));
  const [admin, member] = await Promise.all([role("Admin", true), role("Member", false)]);
  if (!admin || !member) throw new Error("access roles were not created");
  return { adminRoleId: admin, memberRoleId: member };
}

async function ensureAdmin(
  companyId: ObjectId,
  adminRoleId: ObjectId,
  rawEmail: string,
  now: Date,
): Promise<{ userId: ObjectId; existed: boolean }> {
  const email = rawEmail.trim().toLowerCase();
  const existing = await findUserByEmail(email, { companies: 1, modifiedAt: 1 });
  if (existing) {
    if (!existing.companies.some((entry) => entry.companyId.equals(companyId))) {
      await addMembership(existing, emptyMembership(companyId), adminRoleId, now);
      await usersChanged([companyId], existing._id.toHexString());
    }
    return { userId: existing._id, existed: true };
  }
  const userId = newId();
  try {
    await insertUser(
      newUserDoc({
        _id: userId,
        email,
        accessRoles: [adminRoleId],
        companies: [emptyMembership(companyId)],
        createdAt: now,
      }),
    );
    await usersChanged([companyId]);
    return { userId, existed: false };
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
    // Created concurrently (two processes bootstrapping at once): join that one.
    return ensureAdmin(companyId, adminRoleId, email, now);
  }
}

export interface BootstrapOptions {
  /**
   * With `ADMIN_PASSWORD` unset, whether this process may choose the first admin's password
   * (generate it). The server may; a CLI leaves the first admin to the server, whose
   * `ADMIN_PASSWORD` it cannot know, and creates only the company and its roles.
   */
  generatePassword: boolean;
}

export interface BootstrapResult {
  /** `ADMIN_EMAIL` as this process reads it. */
  adminEmail: string;
  /** Set only in the one process that generated and stored the first admin's password. */
  generatedPassword?: string;
  /** False while the first admin is left for the server to create. */
  complete: boolean;
}

/**
 * On an empty database: one company, its `Admin` and `Member` roles and the admin user
 * `ADMIN_EMAIL` with `ADMIN_PASSWORD` (generated when unset, if `options` allow). Every step is an
 * upsert on a unique key, so concurrent first starts (server and CLIs) create all of it once, and
 * a start interrupted half-way is completed by the next.
 */
export async function bootstrap(options: BootstrapOptions = { generatePassword: true }): Promise<BootstrapResult> {
  const { adminEmail, adminPassword } = loadConfig();
  const marker = await readBootstrapMarker();
  if (marker?.done) return { adminEmail, complete: true };
  if (!marker && (await anyCompany())) {
    // Data from before this service managed the bootstrap: leave it alone.
    await upsertRetrying(markBootstrappedBefore);
    return { adminEmail, complete: true };
  }
  const now = new Date();
  const claimed = await upsertRetrying(() => claimBootstrapMarker(newId(), now));
  const companyId = claimed?.companyId;
  if (!companyId) throw new Error("bootstrap marker without a company");

  await upsertRetrying(() => insertCompanyOnce(newDoc({ _id: companyId, name: DEFAULT_COMPANY_NAME, createdAt: now })));
  const { adminRoleId } = await ensureRoles(companyId, now);
  if (adminPassword === undefined && !options.generatePassword) return { adminEmail, complete: false };
  const { userId } = await ensureAdmin(companyId, adminRoleId, adminEmail, now);

  let generatedPassword: string | undefined;
  if (!(await hasPassword(userId))) {
    const password = adminPassword ?? randomBytes(12).toString("base64url");
    const stored = await storeFirstPasswordHash(userId, await hashPassword(password), now).catch((error: unknown) => {
      if (isDuplicateKeyError(error)) return false;
      throw error;
    });
    // Only the one process that stored it may show it.
    if (stored && adminPassword === undefined) generatedPassword = password;
  }
  await finishBootstrapMarker();
  log().info({ company: companyId.toHexString(), admin: adminEmail }, "bootstrap complete");
  return { adminEmail, complete: true, ...(generatedPassword ? { generatedPassword } : {}) };
}
