/**
 * `count=true` is served from a count kept in the database and shared by every server process
 * (docs/api.md#counters): exact after every write through any process while counting is cheap,
 * answered as it was for a dear count while one process counts it again, never mixed between
 * companies.
 */
import { ListCount } from "@/lib/kernel/counts";
import { oid } from "@/lib/kernel/ids";
import { Job } from "@/lib/resources/jobs/repository";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, createTenant, success, type Tenant } from "@/lib/tools/testing/http";
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import * as user from "./[id]/route";
import * as bulk from "./bulk/route";
import * as importRoute from "./import/route";
import * as users from "./route";

const ROOT = path.resolve(__dirname, "..", "..", "..");
const RUNNER = path.join(ROOT, "lib", "resources", "jobs", "testing", "runner-process.ts");
/** How long any awaited condition may take on a busy machine: a bound, not an expectation. */
const BOUND_MS = 30_000;

// The import runs in a child process (Node with tsx loading the app): seconds to start on a busy machine.
describe("count=true: counts kept in the database", { timeout: 120_000 }, () => {
  const db = useTestDatabase();
  let t: Tenant;
  let other: Tenant;
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });

  beforeAll(async () => {
    [t, other] = await Promise.all([createTenant("Counts"), createTenant("Counts elsewhere")]);
  });

  const counter = async (query: string, tenant = t): Promise<number> => {
    const response = await call(users.GET, `/v2/users?count=true${query ? `&${query}` : ""}`, {
      token: tenant.adminToken,
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return success(response).data.counter!;
  };
  const filters = () => ({
    all: "isActive=all",
    active: "",
    inactive: "isActive=false",
    roleInactive: `accessRole=${t.memberRoleId}&isActive=false`,
    search: "search=zeta",
  });
  const counters = async (tenant = t) =>
    Object.fromEntries(
      await Promise.all(
        Object.entries(filters()).map(async ([name, query]) => [name, await counter(query, tenant)] as const),
      ),
    );
  let serial = 0;
  const create = async (tenant = t, body: Record<string, unknown> = {}) => {
    const response = await call(users.POST, "/v2/users", {
      token: tenant.adminToken,
      admin: true,
      body: {
        email: `zeta.${++serial}@counts.test`,
        name: { displayName: "Zeta Count", names: "Zeta", lastName: "Count", secondLastName: "" },
        accessRoles: [tenant.memberRoleId],
        ...body,
      },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return success(response)._id;
  };
  /** The stored counts of a company, by filter key. */
  const storedCounts = async (tenant: Tenant) =>
    ListCount.find({ company: oid(tenant.companyId), count: { $exists: true } }).lean();

  it("is exact after creates, a deactivation, a bulk action and an import made by another process", async () => {
    const before = await counters();
    const elsewhere = await counters(other);
    const ids = [await create(), await create(), await create()];
    expect(await counters()).toEqual({
      ...before,
      all: before.all + 3,
      active: before.active + 3,
      search: before.search + 3,
    });

    // A deactivation by PATCH moves the user from the active counts to the inactive ones.
    const patched = await call(user.PATCH, `/v2/users/${ids[0]}`, {
      method: "PATCH",
      token: t.adminToken,
      admin: true,
      params: { id: ids[0] },
      body: { isActive: false },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    // A bulk deactivation of the other two.
    const bulked = await call(bulk.POST, "/v2/users/bulk", {
      token: t.adminToken,
      admin: true,
      body: { ids: ids.slice(1), action: "deactivate" },
    });
    expect(bulked.status, JSON.stringify(bulked.body)).toBe(200);
    // (A search lists active users, as the default list does.)
    expect(await counters()).toEqual({
      ...before,
      all: before.all + 3,
      inactive: before.inactive + 3,
      roleInactive: before.roleInactive + 3,
    });

    // An import of five users, run by another process's job runner: the counts this process answers next see it.
    const lines = [
      "email,firstName,lastName,accessRoles",
      ...Array.from({ length: 5 }, (_, n) => `zeta.import.${n}@counts.test,Zeta,Imported,Member`),
    ];
    const started = await call(importRoute.POST, "/v2/users/import", {
      method: "POST",
      token: t.adminToken,
      admin: true,
      rawBody: lines.join("\n"),
      headers: { "content-type": "text/csv" },
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const child = spawn(process.execPath, ["--import", "tsx", RUNNER, "--owner", "other-process"], {
      cwd: ROOT,
      env: { ...process.env, MONGODB_URI: db.uri, LOG_LEVEL: "warn" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    children.push(child);
    const job = oid(success(started)._id);
    await vi.waitFor(async () => expect((await Job.findById(job).lean())?.status).toBe("succeeded"), {
      timeout: BOUND_MS,
      interval: 100,
    });
    expect((await Job.findById(job).lean())?.leaseOwner).toBe("other-process");
    child.kill("SIGKILL");
    expect(await counters()).toEqual({
      ...before,
      all: before.all + 8,
      active: before.active + 5,
      inactive: before.inactive + 3,
      roleInactive: before.roleInactive + 3,
      search: before.search + 5,
    });

    // The other company's counts are its own: none of these writes changed them.
    expect(await counters(other)).toEqual(elsewhere);
  });

  it("is exact after concurrent creates, whose marks are raised together", async () => {
    const before = await counter("isActive=all");
    // Counted while they are written, and after: the last count sees every one.
    const [during] = await Promise.all([counter("isActive=all"), ...Array.from({ length: 10 }, () => create())]);
    expect(during).toBeGreaterThanOrEqual(before);
    expect(await counter("isActive=all")).toBe(before + 10);
  });

  /** Dates every stored count of a company as counted at `at` (a cheap count is due again 5 s after it). */
  const countedAt = (tenant: Tenant, at: Date) =>
    ListCount.updateMany({ company: oid(tenant.companyId), count: { $exists: true } }, { $set: { countedAt: at } });

  it("answers a current count from the database without counting it again, each company its own", async () => {
    await counters();
    await counters(other);
    // Dated a minute ahead, so that a busy machine's seconds between two requests never make them due.
    const ahead = new Date(Date.now() + 60_000);
    await Promise.all([countedAt(t, ahead), countedAt(other, ahead)]);
    const storedElsewhere = await storedCounts(other);
    expect(await storedCounts(t)).toHaveLength(Object.keys(filters()).length);
    await counters();
    // Not counted again: the same documents, counted at the same moment.
    expect((await storedCounts(t)).map((count) => count.countedAt?.getTime())).toEqual(
      Object.keys(filters()).map(() => ahead.getTime()),
    );

    // A write in one company leaves the other company's counts current, and has its own counted again.
    await countedAt(t, new Date(Date.now() - 1_000));
    const stored = await storedCounts(t);
    await create();
    await counters();
    await counters(other);
    expect((await storedCounts(other)).map((count) => count.countedAt?.getTime()).sort()).toEqual(
      storedElsewhere.map((count) => count.countedAt?.getTime()).sort(),
    );
    expect(
      (await storedCounts(t)).every((count) =>
        stored.some((before) => before._id === count._id && before.countedAt!.getTime() < count.countedAt!.getTime()),
      ),
    ).toBe(true);
  });

  it("answers a dear count as it was after a write, while it is counted again in the background", async () => {
    const query = filters().search;
    const was = await counter(query);
    // As a broad search of a million users stores it: 5,000 matches, counted in two seconds.
    await ListCount.updateMany(
      { company: oid(t.companyId), count: { $exists: true } },
      { $set: { tookMs: 2_000, count: 5_000 } },
    );
    // Current (no write since): answered from the store as it is.
    expect(await counter(query)).toBe(5_000);
    await create();
    // The write made it stale, and it was counted longer ago than ten times its cost: answered as
    // it was, at once, while one process counts it again.
    await ListCount.updateMany(
      { company: oid(t.companyId), count: { $exists: true } },
      { $set: { countedAt: new Date(Date.now() - 25_000) } },
    );
    expect(await counter(query)).toBe(5_000);
    await vi.waitFor(async () => expect(await counter(query)).toBe(was + 1), { timeout: BOUND_MS, interval: 50 });
    // Only the search was asked for, so only it was counted again (in milliseconds here: a cheap count again), its lease given back.
    const recounted = (await storedCounts(t)).filter((count) => count.tookMs! < 2_000);
    expect(recounted.map((count) => [count.count, count.leaseUntil])).toEqual([[was + 1, null]]);
  });

  it("counts a dear count again at most once in ten times its cost, however many writes come", async () => {
    const query = filters().search;
    const was = await counter(query);
    // Counted a second ago in two seconds: not due again for twenty.
    await ListCount.updateMany(
      { company: oid(t.companyId), count: { $exists: true } },
      { $set: { tookMs: 2_000, count: 5_000, countedAt: new Date(Date.now() - 1_000), leaseUntil: null } },
    );
    for (let i = 0; i < 3; i++) {
      await create();
      expect(await counter(query)).toBe(5_000);
    }
    // No process took it to count again: its lease is free and it still holds what it held.
    const held = (await storedCounts(t)).map((count) => [count.count, count.leaseUntil]);
    expect(held.length).toBeGreaterThan(0);
    expect(held).toEqual(held.map(() => [5_000, null]));
    // Once due, the next request has it counted again in the background: the three creates show.
    await ListCount.updateMany(
      { company: oid(t.companyId), count: { $exists: true } },
      { $set: { countedAt: new Date(Date.now() - 25_000) } },
    );
    expect(await counter(query)).toBe(5_000);
    await vi.waitFor(async () => expect(await counter(query)).toBe(was + 3), { timeout: BOUND_MS, interval: 50 });
  });
});
