/**
 * A change and its event are all-or-nothing across a crash (docs/architecture.md#events): the
 * database runs as `npm start` runs it, `npm run db` in a process of its own, and this process's
 * app (lib/kernel/db, the real user services) creates and PATCHes users of one company from many
 * workers at once until the database is killed with SIGKILL at a random moment. It starts again
 * on the same directory and port (as `npm start`'s supervisor does), the changes in flight end as
 * the driver's retries make them end, and then every acknowledged change must have exactly one
 * event, every event its change, and each change that was in flight both or neither. Each change
 * runs under its own request id, which its event records, so every event names the attempt that
 * wrote it. Several rounds on one directory; the seed is printed and EVENTS_CRASH_SEED=<seed>
 * replays the same choices.
 */
import { connect, disconnect } from "@/lib/kernel/db";
import { oid } from "@/lib/kernel/ids";
import { Notes } from "@/lib/kernel/notes";
import type { Principal } from "@/lib/kernel/principal";
import { withRequestContext } from "@/lib/kernel/request-context";
import { createUser, updateUser } from "@/lib/resources/users/service";
import { generator, killDbProcesses, startDb, type DbProcess } from "@/lib/tools/testing/db-process";
import { createTenant, type Tenant } from "@/lib/tools/testing/http";
import mongoose from "mongoose";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROUNDS = 3;
const WORKERS = 10;

interface Attempt {
  /** Also the request id its event records. */
  id: string;
  kind: "create" | "update";
  round: number;
  email: string;
  /** The phone it sets: unique to the attempt, so the stored phone names the last change applied. */
  phone: string;
  /** Known for a create once acknowledged, for an update from the start. */
  userId?: string;
  outcome: "sent" | "acknowledged" | "failed";
  error?: string;
  /** Failed while the database still ran: no change may fail for any other reason than the crash. */
  failedBeforeKill?: boolean;
  /** For a failed attempt: whether its change was found applied after the crash, once checked. */
  applied?: boolean;
}

/** Every attempt of every round, in the order each worker sent them. */
class Ledger {
  readonly attempts: Attempt[] = [];
  /** Each user's attempts, oldest first; a user is changed by one worker at a time, so at most the last one is in flight. */
  readonly byEmail = new Map<string, Attempt[]>();
  acks = 0;

  add(attempt: Attempt): Attempt {
    this.attempts.push(attempt);
    const list = this.byEmail.get(attempt.email) ?? [];
    list.push(attempt);
    this.byEmail.set(attempt.email, list);
    return attempt;
  }
}

interface Owned {
  id: string;
  email: string;
}

/** One worker: creates users and PATCHes its own, one change at a time, until the round stops or a change fails. */
async function worker(
  rand: () => number,
  auth: Principal,
  round: number,
  w: number,
  owned: Owned[],
  ledger: Ledger,
  stopped: () => boolean,
  onAck: () => void,
): Promise<void> {
  for (let seq = 0; !stopped(); seq++) {
    const name = `r${round}-w${w}-${seq}`;
    const create = owned.length === 0 || rand() < 0.3;
    const target = create ? undefined : owned[Math.floor(rand() * owned.length)];
    const attempt = ledger.add({
      id: `${create ? "create" : "update"}-${name}`,
      kind: create ? "create" : "update",
      round,
      email: target?.email ?? `${name}@crash.test`,
      phone: `p-${name}`,
      userId: target?.id,
      outcome: "sent",
    });
    try {
      await withRequestContext({ requestId: attempt.id, principal: auth }, async () => {
        if (create) {
          const user = await createUser(
            auth,
            {
              email: attempt.email,
              phone: attempt.phone,
              accessRoles: [],
              properties: [],
              isActive: true,
              isOnline: false,
              termsConditions: false,
              extensions: {},
            },
            { notifyEmail: false, notes: new Notes() },
          );
          attempt.userId = user._id;
          owned.push({ id: user._id, email: attempt.email });
        } else {
          await updateUser(auth, attempt.userId!, { phone: attempt.phone }, new Notes());
        }
      });
    } catch (error) {
      attempt.outcome = "failed";
      attempt.error = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      attempt.failedBeforeKill = !stopped();
      // A later change of the same user would hide whether this one was applied.
      return;
    }
    attempt.outcome = "acknowledged";
    ledger.acks += 1;
    onAck();
  }
}

interface StoredUser {
  _id: mongoose.Types.ObjectId;
  email: string;
  phone?: string | null;
}

interface StoredEvent {
  type: string;
  resource: { id: string };
  requestId: string | null;
}

/** The users and the user events of the company as stored, checked against the ledger. */
async function check(tenant: Tenant, ledger: Ledger, context: string): Promise<void> {
  const db = mongoose.connection.db!;
  const company = oid(tenant.companyId);
  const users = await db
    .collection<StoredUser>("users")
    .find({ "companies.companyId": company }, { projection: { email: 1, phone: 1 } })
    .toArray();
  const events = await db
    .collection<StoredEvent>("events")
    .find(
      { company, type: { $in: ["user.created", "user.updated"] } },
      { projection: { type: 1, resource: 1, requestId: 1 } },
    )
    .toArray();
  const userById = new Map(users.map((user) => [user._id.toHexString(), user]));
  const userByEmail = new Map(users.map((user) => [user.email, user]));
  const attemptById = new Map(ledger.attempts.map((attempt) => [attempt.id, attempt]));

  // No event without its change: each names an existing user and an attempt on that very user.
  expect(
    events
      .filter((event) => !userById.has(event.resource.id))
      .map((event) => `${event.type} of ${event.resource.id} by ${event.requestId}`),
    `${context}: events of users that do not exist`,
  ).toEqual([]);
  const eventsOf = new Map<string, StoredEvent[]>();
  for (const event of events) {
    if (event.requestId === null) continue;
    const attempt = attemptById.get(event.requestId);
    if (!attempt) continue;
    expect(`${event.type} of ${attempt.email}`, `${context}: event of attempt ${attempt.id}`).toBe(
      `user.${attempt.kind}d of ${userById.get(event.resource.id)?.email}`,
    );
    eventsOf.set(attempt.id, [...(eventsOf.get(attempt.id) ?? []), event]);
  }
  // Every user of the company has exactly one user.created event, but the first admin, whom
  // createCompany writes without one (as `npm run company` and the bootstrap do).
  const created = new Map<string, number>();
  for (const event of events)
    if (event.type === "user.created") created.set(event.resource.id, (created.get(event.resource.id) ?? 0) + 1);
  expect(
    users
      .filter((user) => user._id.toHexString() !== tenant.adminId && created.get(user._id.toHexString()) !== 1)
      .map((user) => `${user.email}: ${created.get(user._id.toHexString()) ?? 0}`),
    `${context}: users without exactly one user.created event`,
  ).toEqual([]);
  // Every user.updated event is one of the ledger's updates (nothing else updates users here).
  expect(
    events
      .filter((event) => event.type === "user.updated" && attemptById.get(event.requestId ?? "")?.kind !== "update")
      .map((event) => `${event.resource.id} by ${event.requestId}`),
    `${context}: user.updated events of no attempt`,
  ).toEqual([]);

  const problems: string[] = [];
  for (const [email, attempts] of ledger.byEmail) {
    const user = userByEmail.get(email);
    // The phone the user must have: the last applied attempt's (a failed attempt's, when it was).
    let expectedPhone: string | undefined;
    for (const attempt of attempts) {
      const count = eventsOf.get(attempt.id)?.length ?? 0;
      if (attempt.outcome === "sent") {
        problems.push(`${attempt.id} never settled`);
        continue;
      }
      if (attempt.outcome === "failed" && attempt.applied === undefined) {
        // In flight at the crash and failed after it: both the change and its event, or neither.
        attempt.applied = user !== undefined && user.phone === attempt.phone;
        if (count !== (attempt.applied ? 1 : 0))
          problems.push(`${attempt.id} (failed: ${attempt.error}) applied=${attempt.applied} with ${count} events`);
      } else {
        const applied = attempt.outcome === "acknowledged" || attempt.applied === true;
        if (count !== (applied ? 1 : 0))
          problems.push(`${attempt.id} (${attempt.outcome}, applied=${applied}) has ${count} events`);
      }
      if (attempt.outcome === "acknowledged" || attempt.applied) expectedPhone = attempt.phone;
    }
    if (expectedPhone === undefined) {
      if (user) problems.push(`${email} exists though no create of it was applied`);
    } else if (!user) {
      problems.push(`${email} is missing though its create was applied`);
    } else if (user.phone !== expectedPhone) {
      problems.push(`${email} has phone ${user.phone}, not ${expectedPhone} of its last applied change`);
    }
  }
  expect(problems, `${context}: attempts whose change and event disagree`).toEqual([]);
}

describe("the embedded database killed with SIGKILL while users are created and changed", () => {
  const seed = Number(process.env.EVENTS_CRASH_SEED) || Math.floor(Math.random() * 2 ** 31);
  const rand = generator(seed);
  const ledger = new Ledger();
  const previousUri = process.env.MONGODB_URI;
  let parent: string;

  beforeAll(async () => {
    console.log(`events crash seed ${seed} (replay with EVENTS_CRASH_SEED=${seed})`);
    parent = await mkdtemp(path.join(tmpdir(), "events-crash-"));
  });

  afterAll(async () => {
    await disconnect();
    killDbProcesses();
    if (previousUri === undefined) delete process.env.MONGODB_URI;
    else process.env.MONGODB_URI = previousUri;
    if (parent) await rm(parent, { recursive: true, force: true });
  });

  it(`keeps each change with its event over ${ROUNDS} kills`, { timeout: 240_000 }, async () => {
    const dir = path.join(parent, "db");
    let db: DbProcess = await startDb(dir);
    process.env.MONGODB_URI = db.uri;
    const tenant = await createTenant("Crash");
    const auth: Principal = { userId: tenant.adminId, companyId: tenant.companyId, sessionId: "", accessRoles: [] };
    let users: Owned[] = [];

    for (let round = 1; round <= ROUNDS; round++) {
      const killAt = 10 + Math.floor(rand() * 120);
      const context = `seed ${seed}, round ${round}, killed after ${killAt} acknowledged changes`;
      const owned = Array.from({ length: WORKERS }, (_, w) => users.filter((_, k) => k % WORKERS === w));
      const start = ledger.acks;
      let killedAt: number | undefined;
      const onAck = () => {
        if (killedAt === undefined && ledger.acks - start >= killAt) {
          killedAt = ledger.attempts.length;
          db.child.kill("SIGKILL");
        }
      };
      const workers = owned.map((mine, w) =>
        worker(
          generator(Math.floor(rand() * 2 ** 32)),
          auth,
          round,
          w,
          mine,
          ledger,
          () => killedAt !== undefined,
          onAck,
        ),
      );
      const settled = Promise.allSettled(workers);

      // Wait for the kill, then start again at the same address, where the driver finds it again.
      await Promise.race([db.exited, settled]);
      expect(killedAt, `${context}: the burst ended before the kill`).toBeDefined();
      expect(await db.exited).toBe("SIGKILL");
      const port = db.port;
      db = await startDb(dir, { port }).catch(() => startDb(dir));
      process.env.MONGODB_URI = db.uri;
      // Another process took the port: the changes in flight cannot reach the database, so end them.
      if (db.port !== port) await disconnect();
      for (const outcome of await settled) expect(outcome.status).toBe("fulfilled");
      const early = ledger.attempts.filter((attempt) => attempt.failedBeforeKill);
      expect(
        early.map((attempt) => `${attempt.id}: ${attempt.error}`),
        `${context}: changes that failed before the kill`,
      ).toEqual([]);

      // A fresh connection to the process now serving.
      await disconnect();
      await connect();
      await check(tenant, ledger, context);
      const failed = ledger.attempts.filter((attempt) => attempt.round === round && attempt.outcome === "failed");
      console.log(
        `${context}: ${failed.length} changes in flight failed, ${failed.filter((attempt) => attempt.applied).length} of them applied with their event`,
      );
      users = [...ledger.byEmail.values()]
        .map((attempts) => attempts.find((attempt) => attempt.kind === "create" && attempt.userId !== undefined))
        .filter((attempt) => attempt !== undefined)
        .map((attempt) => ({ id: attempt.userId!, email: attempt.email }));
    }
    const acknowledged = ledger.attempts.filter((attempt) => attempt.outcome === "acknowledged");
    expect(acknowledged.length).toBeGreaterThan(ROUNDS * 10);
  });
});
