/**
 * Companies (tenants): creating one with its `Admin` and `Member` roles and an admin user, and the
 * bootstrap of an empty database (docs/api.md#companies-and-bootstrap).
 */
import { randomBytes } from "node:crypto";
import { loadConfig } from "@/lib/config";
import { AccessRole, Company, Credential, Meta } from "@/lib/models";
import { emptyMembership, newDoc, User } from "@/lib/users/repository";
import type { CompanyRecord } from "@/lib/schemas/companies";
import { isDuplicateKeyError } from "./errors";
import { newId, type ObjectId } from "./ids";
import { log } from "./log";
import { hashPassword } from "./passwords";
import { usersChanged } from "@/lib/users/service";

export const DEFAULT_COMPANY_NAME = "Default company";

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
export async function createCompany(input: { name: string; adminEmail: string; adminPassword?: string }): Promise<CreatedCompany> {
  const now = new Date();
  const companyId = newId();
  await Company.create({ _id: companyId, name: input.name, createdAt: now, modifiedAt: now });
  const { adminRoleId, memberRoleId } = await ensureRoles(companyId, now);
  const { userId, existed } = await ensureAdmin(companyId, adminRoleId, input.adminEmail, now);
  if (!existed && input.adminPassword !== undefined) {
    await Credential.updateOne(
      { _id: userId },
      { $setOnInsert: { passwordHash: await hashPassword(input.adminPassword), modifiedAt: now } },
      { upsert: true },
    );
  }
  return {
    company: { _id: companyId.toHexString(), name: input.name, createdAt: now.toISOString(), modifiedAt: now.toISOString() },
    adminRoleId: adminRoleId.toHexString(),
    memberRoleId: memberRoleId.toHexString(),
    adminUserId: userId.toHexString(),
    adminExisted: existed,
  };
}

export async function listCompanies(): Promise<CompanyRecord[]> {
  const companies = await Company.find({}).sort({ createdAt: 1, _id: 1 }).lean();
  return companies.map((company) => ({
    _id: company._id.toHexString(),
    name: company.name,
    createdAt: company.createdAt.toISOString(),
    modifiedAt: company.modifiedAt.toISOString(),
  }));
}

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
  const role = (name: string, isAdmin: boolean) =>
    upsertRetrying(() =>
      AccessRole.findOneAndUpdate(
        { company: companyId, name },
        { $setOnInsert: { isAdmin, createdAt: now, modifiedAt: now } },
        { upsert: true, returnDocument: "after", projection: { _id: 1 } },
      ).lean(),
    );
  const [admin, member] = await Promise.all([role("Admin", true), role("Member", false)]);
  if (!admin || !member) throw new Error("access roles were not created");
  return { adminRoleId: admin._id, memberRoleId: member._id };
}

async function ensureAdmin(companyId: ObjectId, adminRoleId: ObjectId, rawEmail: string, now: Date): Promise<{ userId: ObjectId; existed: boolean }> {
  const email = rawEmail.trim().toLowerCase();
  const existing = await User.findOne({ email }, { companies: 1, modifiedAt: 1 }).lean();
  if (existing) {
    if (!existing.companies.some((entry) => entry.companyId.equals(companyId))) {
      await User.collection.updateOne(
        { _id: existing._id },
        {
          $push: { companies: { _id: newId(), companyId, hierarchy: { boss: [], peers: [], subordinate: [] } } },
          $addToSet: { accessRoles: adminRoleId },
          $set: { modifiedAt: new Date(Math.max(now.getTime(), existing.modifiedAt.getTime() + 1)) },
        } as never,
      );
      usersChanged(existing._id.toHexString());
    }
    return { userId: existing._id, existed: true };
  }
  const userId = newId();
  try {
    await User.collection.insertOne(
      newDoc({ _id: userId, email, accessRoles: [adminRoleId], companies: [emptyMembership(companyId)], createdAt: now }),
    );
    usersChanged();
    return { userId, existed: false };
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
    // Created concurrently (two processes bootstrapping at once): join that one.
    return ensureAdmin(companyId, adminRoleId, email, now);
  }
}

const BOOTSTRAP = "bootstrap";

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
  const marker = await Meta.findById(BOOTSTRAP).lean();
  if (marker?.done) return { adminEmail, complete: true };
  if (!marker && (await Company.exists({}))) {
    // Data from before this service managed the bootstrap: leave it alone.
    await upsertRetrying(() => Meta.updateOne({ _id: BOOTSTRAP }, { $setOnInsert: { companyId: null, createdAt: new Date(), done: true } }, { upsert: true }));
    return { adminEmail, complete: true };
  }
  const now = new Date();
  const claimed = await upsertRetrying(() =>
    Meta.findOneAndUpdate(
      { _id: BOOTSTRAP },
      { $setOnInsert: { companyId: newId(), createdAt: now } },
      { upsert: true, returnDocument: "after" },
    ).lean(),
  );
  const companyId = claimed?.companyId;
  if (!companyId) throw new Error("bootstrap marker without a company");

  await upsertRetrying(() =>
    Company.updateOne({ _id: companyId }, { $setOnInsert: { name: DEFAULT_COMPANY_NAME, createdAt: now, modifiedAt: now } }, { upsert: true }),
  );
  const { adminRoleId } = await ensureRoles(companyId, now);
  if (adminPassword === undefined && !options.generatePassword) return { adminEmail, complete: false };
  const { userId } = await ensureAdmin(companyId, adminRoleId, adminEmail, now);

  let generatedPassword: string | undefined;
  if (!(await Credential.exists({ _id: userId }))) {
    const password = adminPassword ?? randomBytes(12).toString("base64url");
    const result = await Credential.updateOne(
      { _id: userId },
      { $setOnInsert: { passwordHash: await hashPassword(password), modifiedAt: now } },
      { upsert: true },
    ).catch((error: unknown) => {
      if (isDuplicateKeyError(error)) return { upsertedCount: 0 };
      throw error;
    });
    // Only the one process that stored it may show it.
    if (result.upsertedCount === 1 && adminPassword === undefined) generatedPassword = password;
  }
  await Meta.updateOne({ _id: BOOTSTRAP }, { $set: { done: true } });
  log().info({ company: companyId.toHexString(), admin: adminEmail }, "bootstrap complete");
  return { adminEmail, complete: true, ...(generatedPassword ? { generatedPassword } : {}) };
}
