import * as login from "@/app/api/auth/login/route";
import * as me from "@/app/v2/users/me/route";
import { Meta } from "@/lib/kernel/models";
import { ensureIndexes } from "@/lib/platform/startup/ready";
import { Company } from "@/lib/resources/companies/repository";
import { Credential } from "@/lib/resources/credentials/repository";
import { AccessRole } from "@/lib/resources/reference/repository";
import { User } from "@/lib/resources/users/repository";
import { seedDemo } from "@/lib/tools/seed/users";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, success } from "@/lib/tools/testing/http";
import { describe, expect, it } from "vitest";
import { bootstrap, createCompany } from "./companies";

describe("bootstrap of an empty database", () => {
  const db = useTestDatabase();

  it("creates one company, the Admin and Member roles and the admin, once, also when raced", async () => {
    process.env.ADMIN_EMAIL = "First.Admin@Example.com";
    process.env.ADMIN_PASSWORD = "bootstrap password";
    await ensureIndexes();
    await Promise.all([bootstrap(), bootstrap(), bootstrap(), bootstrap()]);
    await bootstrap();

    const companies = await Company.find().lean();
    expect(companies).toHaveLength(1);
    const roles = await AccessRole.find({ company: companies[0]._id }).sort({ name: 1 }).lean();
    expect(roles.map((role) => [role.name, role.isAdmin])).toEqual([
      ["Admin", true],
      ["Member", false],
    ]);
    const admins = await User.find().lean();
    expect(admins).toHaveLength(1);
    expect(admins[0]).toMatchObject({ email: "first.admin@example.com" });
    // Active in its company: the flag is the membership's (an account-wide one is of earlier versions).
    expect(admins[0].companies.map((entry) => entry.isActive)).toEqual([true]);
    expect(admins[0].accessRoles).toEqual([roles[0]._id]);
    expect(admins[0].companies.map((entry) => entry.companyId)).toEqual([companies[0]._id]);
    expect(await Credential.countDocuments()).toBe(1);
    expect((await Meta.findById("bootstrap").lean())?.done).toBe(true);

    const signedIn = await call(login.POST, "/api/auth/login", {
      body: { email: "first.admin@example.com", password: "bootstrap password" },
    });
    expect(signedIn.status).toBe(200);
    const self = await call(me.GET, "/v2/users/me", { token: success(signedIn).accessToken });
    expect(success(self).email).toBe("first.admin@example.com");
  });

  it("leaves a database that already has companies alone", async () => {
    await db.clear();
    await createCompany({ name: "Pre-existing", adminEmail: "old@example.com" });
    await bootstrap();
    expect((await Company.find().lean()).map((company) => company.name)).toEqual(["Pre-existing"]);
    expect(await User.exists({ email: "first.admin@example.com" })).toBeNull();
  });

  it("seeds the demo idempotently", async () => {
    await db.clear();
    await bootstrap();
    const first = await seedDemo({ users: 60 });
    expect(first.created).toEqual({ jobTitles: 10, properties: 8, bots: 4, users: 60 });
    const again = await seedDemo({ users: 60 });
    expect(again.created).toEqual({ jobTitles: 0, properties: 0, bots: 0, users: 0 });
    const users = await User.find({
      "companies.companyId": (await Meta.findById("bootstrap").lean())!.companyId,
    }).lean();
    expect(users).toHaveLength(61);
    const root = users.find((user) => user.email.endsWith(".0@demo.example"))!;
    const [membership] = root.companies;
    expect(membership.hierarchy?.subordinate).toHaveLength(5);
    const child = users.find((user) => user._id.equals(membership.hierarchy!.subordinate[0]))!;
    expect(child.companies[0].hierarchy?.boss).toEqual([root._id]);
  });
});
