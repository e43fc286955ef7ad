/**
 * The default users list walks the company's newest-first index and reads about one page, also
 * now that `isActive` is each membership's own: checked with `explain` (executionStats).
 */
import type { Document } from "mongodb";
import { beforeAll, describe, expect, it } from "vitest";
import { createTenant, type Tenant } from "@/lib/testing/http";
import { User } from "@/lib/users/repository";
import { ListUsersQuery } from "@/lib/users/contract";
import { useTestDatabase } from "@/lib/testing/database";
import { oid } from "@/lib/server/ids";
import { Notes } from "@/lib/server/notes";
import { createUser, listFilter } from "@/lib/users/service";

interface Explained {
  queryPlanner: { winningPlan: Document };
  executionStats: { nReturned: number; totalDocsExamined: number };
}

const stageOf = (plan: Document): Document => (plan.inputStage ? stageOf(plan.inputStage as Document) : plan);

describe("indexes of the users list", () => {
  useTestDatabase();
  let t: Tenant;

  beforeAll(async () => {
    t = await createTenant("User indexes");
    const auth = { userId: t.adminId, companyId: t.companyId, sessionId: "", accessRoles: [] };
    for (let i = 0; i < 60; i++) {
      await createUser(
        auth,
        { email: `u${i}@indexes.test`, accessRoles: [t.memberRoleId], properties: [], isActive: i % 10 !== 0, isOnline: false, termsConditions: false, extensions: {} },
        { notifyEmail: false, notes: new Notes() },
      );
    }
  });

  const explain = async (isActive: string) => {
    const filter = await listFilter(oid(t.companyId), ListUsersQuery.parse({ isActive }), new Notes());
    return (await User.collection.find(filter as Document, { sort: { modifiedAt: -1, _id: -1 }, limit: 10 }).explain("executionStats")) as unknown as Explained;
  };

  it("active users (the default): one page of the company's newest-first index", async () => {
    const explained = await explain("true");
    expect(stageOf(explained.queryPlanner.winningPlan)).toMatchObject({ stage: "IXSCAN", keyPattern: { "companies.companyId": 1, modifiedAt: 1, _id: 1 } });
    expect(explained.executionStats.nReturned).toBe(10);
    // Every tenth user is inactive: a page of 10 active ones reads at most a couple more.
    expect(explained.executionStats.totalDocsExamined).toBeLessThanOrEqual(12);
  });

  it("inactive users: the same index, the flag checked on each membership", async () => {
    const explained = await explain("false");
    expect(stageOf(explained.queryPlanner.winningPlan)).toMatchObject({ stage: "IXSCAN", keyPattern: { "companies.companyId": 1, modifiedAt: 1, _id: 1 } });
    expect(explained.executionStats.nReturned).toBe(6);
  });
});
