/**
 * The default users list walks the company's newest-first index and reads about one page, also
 * now that `isActive` is each membership's own: checked with `explain` (executionStats).
 */
import { oid } from "@/lib/kernel/ids";
import { Notes } from "@/lib/kernel/notes";
import { ListUsersQuery } from "@/lib/resources/users/contract";
import { userListFilter } from "@/lib/resources/users/list-filter";
import { User } from "@/lib/resources/users/repository";
import { createUser } from "@/lib/resources/users/service";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { createTenant, type Tenant } from "@/lib/tools/testing/http";
import type { Document } from "mongodb";
import { beforeAll, describe, expect, it } from "vitest";

interface Explained {
  queryPlanner: { winningPlan: Document };
  executionStats: { nReturned: number; totalDocsExamined: number };
}

const stageOf = (plan: Document): Document => (plan.inputStage ? stageOf(plan.inputStage as Document) : plan);
/** Every stage of a plan, outermost first. */
const stagesOf = (plan: Document): string[] => [
  plan.stage as string,
  ...(plan.inputStage ? stagesOf(plan.inputStage as Document) : []),
  ...((plan.inputStages as Document[] | undefined) ?? []).flatMap(stagesOf),
];

describe("indexes of the users list", () => {
  useTestDatabase();
  let t: Tenant;

  beforeAll(async () => {
    t = await createTenant("User indexes");
    const auth = { userId: t.adminId, companyId: t.companyId, sessionId: "", accessRoles: [] };
    for (let i = 0; i < 60; i++) {
      await createUser(
        auth,
        {
          email: `u${i}@indexes.test`,
          accessRoles: [t.memberRoleId],
          properties: [],
          isActive: i % 10 !== 0,
          isOnline: false,
          termsConditions: false,
          extensions: {},
        },
        { notifyEmail: false, notes: new Notes() },
      );
    }
  });

  const explain = async (isActive: string, more: Record<string, string> = {}) => {
    const filter = await userListFilter(oid(t.companyId), ListUsersQuery.parse({ isActive, ...more }), new Notes());
    return (await User.collection
      .find(filter as Document, { sort: { modifiedAt: -1, _id: -1 }, limit: 10 })
      .explain("executionStats")) as unknown as Explained;
  };

  it("active users (the default): one page of the company's newest-first index", async () => {
    const explained = await explain("true");
    expect(stageOf(explained.queryPlanner.winningPlan)).toMatchObject({
      stage: "IXSCAN",
      keyPattern: { "companies.companyId": 1, modifiedAt: 1, _id: 1 },
    });
    expect(explained.executionStats.nReturned).toBe(10);
    // Every tenth user is inactive: a page of 10 active ones reads at most a couple more.
    expect(explained.executionStats.totalDocsExamined).toBeLessThanOrEqual(12);
  });

  it("all users, a page deep by number: the entries before it are passed over without reading their users", async () => {
    // `isActive=all` is the membership alone, which the index's bounds decide (docs/api.md#paging).
    const filter = await userListFilter(oid(t.companyId), ListUsersQuery.parse({ isActive: "all" }), new Notes());
    const sort = { modifiedAt: -1, _id: -1 } as const;
    const explained = (await User.collection
      .find(filter as Document, { sort, skip: 40, limit: 11 })
      .explain("executionStats")) as unknown as Explained;
    expect(stageOf(explained.queryPlanner.winningPlan)).toMatchObject({
      stage: "IXSCAN",
      keyPattern: { "companies.companyId": 1, modifiedAt: 1, _id: 1 },
    });
    // Only the page's 11 users are read.
    expect(explained.executionStats).toMatchObject({ nReturned: 11, totalDocsExamined: 11 });
    const page = await User.collection.find(filter as Document, { sort, skip: 40, limit: 11 }).toArray();
    const walked = await User.collection.find(filter as Document, { sort }).toArray();
    expect(page.map((u) => String(u._id))).toEqual(walked.slice(40, 51).map((u) => String(u._id)));
  });

  it("inactive users: the same index, the flag checked on each membership", async () => {
    const explained = await explain("false");
    expect(stageOf(explained.queryPlanner.winningPlan)).toMatchObject({
      stage: "IXSCAN",
      keyPattern: { "companies.companyId": 1, modifiedAt: 1, _id: 1 },
    });
    expect(explained.executionStats.nReturned).toBe(6);
  });

  // Each order of the list (docs/api.md#sorting) walks its own index of the company: no blocking sort.
  const ORDERS = [
    ["modifiedAt", { modifiedAt: 1 }],
    ["createdAt", { createdAt: 1 }],
    ["nameSort", { nameSort: 1 }],
    ["email", { email: 1 }],
  ] as const;
  for (const [field, key] of ORDERS) {
    for (const direction of [1, -1] as const) {
      it(`the order by ${field} ${direction === 1 ? "ascending" : "descending"} is served by its index, without a SORT stage`, async () => {
        const filter = await userListFilter(oid(t.companyId), ListUsersQuery.parse({ isActive: "true" }), new Notes());
        const explained = (await User.collection
          .find(filter as Document, { sort: { [field]: direction, _id: direction }, limit: 11 })
          .explain("executionStats")) as unknown as Explained;
        const stages = stagesOf(explained.queryPlanner.winningPlan);
        expect(stages).not.toContain("SORT");
        expect(stageOf(explained.queryPlanner.winningPlan)).toMatchObject({
          stage: "IXSCAN",
          keyPattern: { "companies.companyId": 1, ...key, _id: 1 },
        });
        expect(explained.executionStats.nReturned).toBe(11);
        expect(explained.executionStats.totalDocsExamined).toBeLessThanOrEqual(14);
      });
    }
  }

  it("a role and status filter: the page walks the same index in order, never sorting the role's holders", async () => {
    const explained = await explain("false", { accessRole: t.memberRoleId });
    // The role's own index would find every member and sort them all; this walk stops after a page.
    expect(stagesOf(explained.queryPlanner.winningPlan)).not.toContain("SORT");
    expect(stageOf(explained.queryPlanner.winningPlan)).toMatchObject({
      stage: "IXSCAN",
      keyPattern: { "companies.companyId": 1, modifiedAt: 1, _id: 1 },
    });
    expect(explained.executionStats.nReturned).toBe(6);
  });
});
