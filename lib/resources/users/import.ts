/**
 * The import of users in batches (docs/api.md#import): each row of a file is checked with the
 * API's own schemas (CreateUserBody for a new user, UpdateUserBody for an existing one) and the
 * rules of the users service (unique e-mail, the last admin role, account fields of a user of
 * several companies), then a batch's creates and updates, their events and the job's checkpoint
 * commit in one transaction. Users are matched by e-mail; a user of another company with that
 * e-mail is never touched (the row fails, as a create of that e-mail would).
 */
import { inTransaction } from "@/lib/kernel/db/transaction";
import { isDuplicateKeyError } from "@/lib/kernel/errors";
import { oid, type ObjectId } from "@/lib/kernel/ids";
import type { Principal } from "@/lib/kernel/principal";
import { holdsScope } from "@/lib/kernel/scopes";
import { adminChange } from "@/lib/resources/companies/repository";
import { revokeSessions } from "@/lib/resources/credentials/sessions";
import { describeChange, recordChange, writeChange, type DescribedChange } from "@/lib/resources/events/service";
import { findReference } from "@/lib/resources/reference/repository";
import type { Document } from "mongodb";
import { setImmediate } from "node:timers/promises";
import { z } from "zod";
import { CreateUserBody, Email, UpdateUserBody, UserName } from "./contract";
import type { ImportRow, ImportSummary, RowError } from "./import-file";
import { reportedPath } from "./import-file";
import {
  activeMemberHoldsExcept,
  emptyMembership,
  findUsersByEmail,
  insertUsers,
  newDoc,
  setUserFields,
  toUserRecords,
  type LeanUser,
} from "./repository";
import { nameSortKey, userKeywords } from "./search";
import { adminCompanies, usersChanged, wasActiveIn } from "./service";

/** What an import knows of its company, read once per job. */
export interface ImportScope {
  companyId: ObjectId;
  /** The actor: whose changes these are, and whose entitlement over shared users counts. */
  principal: Principal;
  csv: boolean;
  /** Access role and job title ids by name, lowercased (names match case-insensitively), and by id. */
  roles: Map<string, ObjectId>;
  jobTitles: Map<string, ObjectId>;
  /** The company's access role ids, and those of its admin roles. */
  ownRoles: Set<string>;
  adminRoles: ObjectId[];
  /** Companies where the actor is an active admin: the account fields of a shared user need all of its companies. */
  entitled: Set<string>;
  /** Whether the actor holds admin power: a user, or an API key with the scope `admin` (docs/security.md#scopes). */
  adminPower: boolean;
  /** E-mails met so far in the file, with their line: a second row of one e-mail is an error. */
  seen: Map<string, number>;
}

export async function importScope(companyId: ObjectId, principal: Principal, csv: boolean): Promise<ImportScope> {
  const [roles, jobTitles, entitled] = await Promise.all([
    findReference("accessRoles", { company: companyId }, { projection: { name: 1, isAdmin: 1 } }),
    findReference("jobTitles", { company: companyId }, { projection: { name: 1 } }),
    adminCompanies(principal),
  ]);
  // A record is named by its name or by its id: the NDJSON export writes ids, and the CSV export a reference's id once its name is gone.
  const byName = (docs: { _id: ObjectId; name: string }[]) => {
    const map = new Map<string, ObjectId>();
    for (const doc of docs) if (!map.has(doc.name.toLowerCase())) map.set(doc.name.toLowerCase(), doc._id);
    for (const doc of docs) if (!map.has(doc._id.toHexString())) map.set(doc._id.toHexString(), doc._id);
    return map;
  };
  return {
    companyId,
    principal,
    csv,
    roles: byName(roles),
    jobTitles: byName(jobTitles),
    ownRoles: new Set(roles.map((role) => role._id.toHexString())),
    adminRoles: roles.filter((role) => role.isAdmin).map((role) => role._id),
    entitled: new Set(entitled.map((id) => id.toHexString())),
    adminPower: holdsScope(principal, "admin"),
    seen: new Map(),
  };
}

export interface BatchOutcome {
  summary: ImportSummary;
  errors: RowError[];
}

/** A row that passed every check on its own: what it makes of its user. */
type Plan =
  | { kind: "create"; row: ImportRow; doc: LeanUser }
  | {
      kind: "update";
      row: ImportRow;
      before: LeanUser;
      after: LeanUser;
      set: Document;
      demotes: boolean;
      changes: readonly string[];
    }
  | { kind: "unchanged"; row: ImportRow };

/**
 * A batch checked against the users its e-mails found, with what it would write: made before the
 * batch's transaction, while the batch before it commits (docs/architecture.md#jobs), and made
 * again inside it when a write shows that those users changed meanwhile.
 */
export interface PreparedBatch {
  rows: ImportRow[];
  emails: Map<ImportRow, string | RowError>;
  plans: Plan[];
  errors: RowError[];
  failed: number;
  /** The event and audit entry of each create, in the order of the creates in `plans`. */
  created: DescribedChange[];
  /** When the rows were checked: the time of their changes. */
  at: Date;
}

/** Thrown inside a batch's transaction when its work must be done again (a user changed under it). */
class Retry extends Error {}
/** How often a batch is tried again when users change under it. */
const BATCH_ATTEMPTS = 5;
/** Rows checked between two turns given to the rest of the process. */
const YIELD_EVERY = 100;

/** Checks a batch's rows, in file order, outside any transaction: the first half of {@link importBatch}. */
export async function prepareBatch(scope: ImportScope, rows: ImportRow[], dryRun: boolean): Promise<PreparedBatch> {
  const emails = noteEmails(scope, rows);
  return planBatch(scope, rows, emails, await findExisting(emails), dryRun);
}

/**
 * Applies a prepared batch, then calls `commit` with the outcome inside the same transaction (the
 * job's checkpoint): when `commit` answers false (the job is no longer this worker's), nothing of
 * the batch is kept and it throws. A dry run checks and counts the same way and writes only what
 * `commit` writes.
 */
export async function importBatch(
  scope: ImportScope,
  prepared: PreparedBatch,
  dryRun: boolean,
  commit: (outcome: BatchOutcome) => Promise<boolean>,
): Promise<BatchOutcome> {
  for (let attempt = 1; ; attempt++) {
    try {
      const outcome = await inTransaction(async () => {
        // A user created or changed since the batch was checked fails its write (the unique e-mail, the version an update is conditioned on): the batch is then checked again here.
        const planned =
          attempt === 1
            ? prepared
            : await planBatch(scope, prepared.rows, prepared.emails, await findExisting(prepared.emails), dryRun);
        const result = await writeBatch(scope, planned, dryRun);
        if (!(await commit(result.outcome))) throw new LostJob();
        return result;
      });
      if (!dryRun && (outcome.created > 0 || outcome.updated.length > 0)) {
        await usersChanged([scope.companyId]);
        for (const id of outcome.updated) await usersChanged([], id);
        // A (de)activation ends the user's sessions in this company, as a PATCH's does (docs/security.md#passwords-and-tokens).
        for (const id of outcome.activityChanged) await revokeSessions(id, { companyId: scope.companyId });
      }
      return outcome.outcome;
    } catch (error) {
      if ((error instanceof Retry || isDuplicateKeyError(error)) && attempt < BATCH_ATTEMPTS) continue;
      throw error;
    }
  }
}

/** The job was taken by another worker (this one's lease had expired): its work is not this one's to commit. */
export class LostJob extends Error {
  constructor() {
    super("the job is held by another worker");
  }
}

/** Each row's e-mail, normalised, or its error; an e-mail met on an earlier row is an error. Remembered for the rows that follow. */
export function noteEmails(scope: ImportScope, rows: ImportRow[]): Map<ImportRow, string | RowError> {
  const result = new Map<ImportRow, string | RowError>();
  for (const row of rows) {
    if (row.errors) continue;
    const parsed = Email.safeParse(row.fields.email ?? "");
    if (!parsed.success) {
      result.set(row, {
        line: row.line,
        path: "email",
        message: row.fields.email ? parsed.error.issues[0].message : "is required",
      });
      continue;
    }
    const earlier = scope.seen.get(parsed.data);
    if (earlier !== undefined && earlier !== row.line) {
      result.set(row, {
        line: row.line,
        path: "email",
        message: `appears earlier in the file (line ${earlier}); each user may have one row`,
      });
      continue;
    }
    scope.seen.set(parsed.data, row.line);
    result.set(row, parsed.data);
  }
  return result;
}

async function findExisting(emails: Map<ImportRow, string | RowError>): Promise<Map<string, LeanUser>> {
  const found = await findUsersByEmail(
    [...emails.values()].filter((value): value is string => typeof value === "string"),
  );
  return new Map(found.map((user) => [user.email, user]));
}

async function planBatch(
  scope: ImportScope,
  rows: ImportRow[],
  emails: Map<ImportRow, string | RowError>,
  existing: Map<string, LeanUser>,
  dryRun: boolean,
): Promise<PreparedBatch> {
  const errors: RowError[] = [];
  let failed = 0;
  const now = new Date();
  const plans: Plan[] = [];
  for (const [n, row] of rows.entries()) {
    // In slices: the batch committing beside this one gets its turns of the event loop between them.
    if (n > 0 && n % YIELD_EVERY === 0) await setImmediate();
    const email = emails.get(row);
    const rowErrors =
      row.errors ??
      (typeof email === "object"
        ? [email]
        : email === undefined
          ? []
          : planRow(scope, row, email, existing.get(email), now, plans));
    if (rowErrors.length > 0) failed++;
    errors.push(...rowErrors);
  }
  const docs = plans.flatMap((plan) => (plan.kind === "create" ? [plan.doc] : []));
  const records = dryRun || docs.length === 0 ? [] : await toUserRecords(docs, scope.companyId);
  const created: DescribedChange[] = [];
  for (const [n, record] of records.entries()) {
    if (n > 0 && n % YIELD_EVERY === 0) await setImmediate();
    created.push(
      describeChange({
        company: scope.companyId,
        resource: "user",
        id: docs[n]._id,
        action: "created",
        after: record,
        ignore: ["search", "lastRequestDate"],
        at: now,
      })!,
    );
  }
  return { rows, emails, plans, errors, failed, created, at: now };
}

async function writeBatch(scope: ImportScope, planned: PreparedBatch, dryRun: boolean) {
  const errors = [...planned.errors];
  let failed = planned.failed;
  const created = planned.plans.filter((plan) => plan.kind === "create");
  const updated = planned.plans.filter((plan) => plan.kind === "update");
  const applied: Plan[] = [];
  if (!dryRun) {
    await insertUsers(created.map((plan) => plan.doc));
    for (const change of planned.created) await writeChange(change);
  }
  applied.push(...created);
  // One by one, in file order: a demotion is checked against the rows before it (docs/api.md#the-last-admin-role).
  for (const plan of updated) {
    if (plan.demotes) {
      if (!dryRun) await adminChange(scope.companyId);
      if (!(await keepsAnAdmin(scope, plan.before, dryRun ? applied : []))) {
        errors.push({
          line: plan.row.line,
          path: reportedPath(plan.changes.includes("accessRoles") ? "accessRoles" : "isActive", scope.csv),
          message: "would leave the company without an active admin",
        });
        failed++;
        continue;
      }
    }
    if (!dryRun) {
      if (!(await setUserFields(plan.before, plan.set))) throw new Retry();
      const [before, after] = await toUserRecords([plan.before, plan.after], scope.companyId);
      await recordChange({
        company: scope.companyId,
        resource: "user",
        id: plan.before._id,
        action: "updated",
        before,
        after,
        ignore: ["search", "lastRequestDate"],
        at: planned.at,
      });
    }
    applied.push(plan);
  }
  const unchanged = planned.plans.filter((plan) => plan.kind === "unchanged").length;
  return {
    outcome: {
      summary: { created: created.length, updated: applied.length - created.length, unchanged, failed },
      errors,
    },
    created: created.length,
    updated: applied.filter((plan) => plan.kind === "update").map((plan) => plan.before._id.toHexString()),
    activityChanged: applied.flatMap((plan) =>
      plan.kind === "update" && wasActiveIn(plan.before, scope.companyId) !== wasActiveIn(plan.after, scope.companyId)
        ? [plan.before._id]
        : [],
    ),
  };
}

/**
 * Whether the company keeps an active admin once `user` loses theirs: another active member holds
 * an admin role. A dry run writes nothing, so what its earlier rows planned is counted by hand.
 */
async function keepsAnAdmin(scope: ImportScope, user: LeanUser, plannedBefore: Plan[]): Promise<boolean> {
  const promoted = plannedBefore.some((plan) =>
    plan.kind === "create"
      ? isActiveAdmin(scope, plan.doc)
      : plan.kind === "update" && isActiveAdmin(scope, plan.after),
  );
  if (promoted) return true;
  const demotedEarlier = plannedBefore.flatMap((plan) =>
    plan.kind === "update" && plan.demotes ? [plan.before._id] : [],
  );
  return activeMemberHoldsExcept(scope.companyId, scope.adminRoles, [user._id, ...demotedEarlier]);
}

const isActiveAdmin = (scope: ImportScope, user: Pick<LeanUser, "accessRoles" | "companies">) =>
  user.companies.some((entry) => entry.companyId.equals(scope.companyId) && entry.isActive !== false) &&
  (user.accessRoles ?? []).some((role) => scope.adminRoles.some((admin) => admin.equals(role)));

/** Checks one row and adds its plan; answers its errors. */
function planRow(
  scope: ImportScope,
  row: ImportRow,
  email: string,
  user: LeanUser | undefined,
  now: Date,
  plans: Plan[],
): RowError[] {
  const errors: RowError[] = [];
  const fail = (path: string, message: string) =>
    errors.push({ line: row.line, path: reportedPath(path, scope.csv), message });
  const { fields } = row;

  // Names to ids: an unknown name is the row's error, as an unknown id is a request's.
  let accessRoles: string[] | undefined;
  if (fields.accessRoles !== undefined) {
    if (!Array.isArray(fields.accessRoles) || fields.accessRoles.some((name) => typeof name !== "string"))
      fail("accessRoles", "must be a list of access role names");
    else {
      accessRoles = [];
      for (const name of fields.accessRoles as string[]) {
        const id = scope.roles.get(name.trim().toLowerCase());
        if (id) accessRoles.push(id.toHexString());
        else fail("accessRoles", `names no access role of the company: ${name}`);
      }
      accessRoles = [...new Set(accessRoles)];
    }
  }
  let job: string | null | undefined;
  if (fields.job !== undefined) {
    if (fields.job === null || fields.job === "") job = null;
    else if (typeof fields.job !== "string") fail("job", "must be a job title name");
    else {
      const id = scope.jobTitles.get(fields.job.trim().toLowerCase());
      if (id) job = id.toHexString();
      else fail("job", `names no job title of the company: ${fields.job}`);
    }
  }
  if (fields.isActive !== undefined && typeof fields.isActive !== "boolean") {
    const text =
      typeof fields.isActive === "string"
        ? fields.isActive
        : (JSON.stringify(fields.isActive) ?? String(fields.isActive));
    fail("isActive", `must be true or false, not ${JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text)}`);
  }
  if (
    fields.name !== undefined &&
    (fields.name === null || typeof fields.name !== "object" || Array.isArray(fields.name))
  )
    fail("name", "must be an object of name parts");
  if (errors.length > 0) return errors;
  const nameParts = fields.name as Record<string, unknown> | undefined;

  if (!user) {
    const name = nameParts
      ? {
          displayName: [nameParts.names, nameParts.lastName]
            .filter((part) => typeof part === "string" && part)
            .join(" "),
          secondLastName: "",
          ...nameParts,
        }
      : undefined;
    const parsed = CreateUserBody.safeParse({
      email,
      accessRoles: accessRoles ?? [],
      name,
      job,
      phone: fields.phone,
      isActive: fields.isActive,
    });
    if (!parsed.success) return issues(parsed.error, fail, errors);
    const body = parsed.data;
    if (!scope.adminPower && body.accessRoles.some((role) => isAdminRole(scope, role))) {
      fail("accessRoles", NEEDS_ADMIN);
      return errors;
    }
    plans.push({
      kind: "create",
      row,
      doc: newDoc({
        email,
        name: body.name,
        accessRoles: body.accessRoles.map(idOf),
        job: body.job ? idOf(body.job) : null,
        phone: body.phone ?? null,
        companies: [emptyMembership(scope.companyId, body.isActive)],
        createdAt: now,
      }),
    });
    return errors;
  }

  const membership = user.companies.find((entry) => entry.companyId.equals(scope.companyId));
  if (!membership) {
    fail("email", "A user with this e-mail already exists.");
    return errors;
  }
  const parsed = UpdateUserBody.safeParse({
    name: nameParts,
    accessRoles,
    job,
    phone: fields.phone,
    isActive: fields.isActive,
  });
  if (!parsed.success) return issues(parsed.error, fail, errors);
  const body = parsed.data;

  // What differs from the stored user, field by field.
  const set: Document = {};
  const after: LeanUser = { ...user };
  const changes: string[] = [];
  if (body.name) {
    const merged = UserName.safeParse({
      ...(user.name ?? {}),
      ...body.name,
      ...(user.name || body.name.displayName
        ? {}
        : {
            displayName: [body.name.names, body.name.lastName].filter(Boolean).join(" "),
            secondLastName: body.name.secondLastName ?? "",
          }),
    });
    if (!merged.success) return issues(merged.error, (path, message) => fail(`name.${path}`, message), errors);
    if (JSON.stringify(ordered(merged.data)) !== JSON.stringify(ordered(user.name))) {
      set.name = merged.data;
      set.search = userKeywords(merged.data, user.email);
      set.nameSort = nameSortKey(merged.data, user.email);
      changes.push("name");
    }
  }
  if (body.accessRoles) {
    const own = (user.accessRoles ?? []).filter((id) => scope.ownRoles.has(id.toHexString()));
    const given = body.accessRoles.map(idOf);
    if (!sameIds(own, given)) {
      // Another company's roles of a shared user are not this company's to remove.
      set.accessRoles = [...given, ...(user.accessRoles ?? []).filter((id) => !scope.ownRoles.has(id.toHexString()))];
      changes.push("accessRoles");
    }
  }
  if (body.job !== undefined && (user.job?.toHexString() ?? null) !== body.job) {
    set.job = body.job ? idOf(body.job) : null;
    changes.push("job");
  }
  if (body.phone !== undefined && (user.phone ?? null) !== body.phone) {
    set.phone = body.phone;
    changes.push("phone");
  }
  if (body.isActive !== undefined && (membership.isActive !== false) !== body.isActive) {
    set.companies = user.companies.map((entry) =>
      entry.companyId.equals(scope.companyId) ? { ...entry, isActive: body.isActive } : entry,
    );
    changes.push("isActive");
  }
  if (changes.length === 0) {
    plans.push({ kind: "unchanged", row });
    return errors;
  }

  // Account fields of a user of several companies: only the user, or an admin of all of them (docs/security.md).
  const account = changes.filter((field) => field === "name" || field === "job" || field === "phone");
  if (!scope.adminPower) {
    // Admin power is the scope admin: no admin role granted or taken, no admin's account changed (docs/security.md#scopes).
    const adminsBefore = (user.accessRoles ?? []).filter((role) => isAdminRole(scope, role.toHexString()));
    const adminsAfter = ((set.accessRoles as ObjectId[] | undefined) ?? user.accessRoles ?? []).filter((role) =>
      isAdminRole(scope, role.toHexString()),
    );
    if (changes.includes("accessRoles") && !sameIds(adminsBefore, adminsAfter)) fail("accessRoles", NEEDS_ADMIN);
    if (adminsBefore.length > 0) for (const field of account) fail(field, NEEDS_ADMIN);
    if (errors.length > 0) return errors;
  }
  const self = user._id.toHexString() === scope.principal.userId;
  if (
    account.length > 0 &&
    !self &&
    user.companies.some(
      (entry) => !scope.entitled.has(entry.companyId.toHexString()) && !entry.companyId.equals(scope.companyId),
    )
  ) {
    for (const field of account)
      fail(field, "is shared by every company of the user; you are not an admin of all of them");
    return errors;
  }
  set.modifiedAt = new Date(Math.max(now.getTime(), user.modifiedAt.getTime() + 1));
  Object.assign(after, set);
  plans.push({
    kind: "update",
    row,
    before: user,
    after,
    set,
    changes,
    demotes: isActiveAdmin(scope, user) && !isActiveAdmin(scope, after),
  });
  return errors;
}

function issues(error: z.ZodError, fail: (path: string, message: string) => void, errors: RowError[]): RowError[] {
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys")
      for (const key of issue.keys) fail([...issue.path, key].join("."), "is not a known field");
    else fail(issue.path.join("."), issue.message);
  }
  return errors;
}

const idOf = (hex: string): ObjectId => oid(hex);
const isAdminRole = (scope: ImportScope, id: string) =>
  scope.adminRoles.some((role) => role.toHexString() === id.toLowerCase());
const NEEDS_ADMIN = "needs the API key scope admin: admin roles and the account of a user holding one are admin power";
const ordered = (name: LeanUser["name"] | z.infer<typeof UserName> | null | undefined) =>
  name
    ? {
        displayName: name.displayName ?? "",
        names: name.names ?? "",
        lastName: name.lastName ?? "",
        secondLastName: name.secondLastName ?? "",
      }
    : null;
const sameIds = (a: ObjectId[], b: ObjectId[]) => {
  const left = new Set(a.map((id) => id.toHexString()));
  const right = new Set(b.map((id) => id.toHexString()));
  return left.size === right.size && [...left].every((id) => right.has(id));
};
