import * as me from "@/app/v2/users/me/route";
import * as users from "@/app/v2/users/route";
import { Company } from "@/lib/resources/companies/repository";
import { User } from "@/lib/resources/users/repository";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, success } from "@/lib/tools/testing/http";
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = path.resolve(__dirname, "..", "..", "..");
const tsx = path.join(root, "node_modules", ".bin", "tsx");

// Each CLI run starts a Node process with tsx: seconds each, more on a busy machine.
describe("CLIs: token and company", { timeout: 120_000 }, () => {
  const db = useTestDatabase();

  const cli = async (script: string, args: string[]) => {
    try {
      const { stdout, stderr } = await run(tsx, [path.join(root, "lib", "platform", "cli", script), ...args], {
        cwd: root,
        env: { ...process.env, MONGODB_URI: db.uri, LOG_LEVEL: "info", ADMIN_PASSWORD: "cli admin password" },
        timeout: 60_000,
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  };

  it("company create prints the new company as JSON; token prints one access token and nothing else", async () => {
    const created = await cli("company.ts", [
      "create",
      "--name",
      "CLI Corp",
      "--admin-email",
      "Boss@CLI.io",
      "--admin-password",
      "boss password",
    ]);
    expect(created.code, created.stderr).toBe(0);
    const company = JSON.parse(created.stdout);
    expect(company).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      name: "CLI Corp",
      adminEmail: "boss@cli.io",
    });
    expect(await Company.exists({ _id: company.id })).not.toBeNull();

    const issued = await cli("token.ts", ["--email", "boss@cli.io", "--ttl", "1h"]);
    expect(issued.code, issued.stderr).toBe(0);
    expect(issued.stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    const token = issued.stdout.trim();
    const self = await call(me.GET, "/v2/users/me", { token });
    expect(self.body).toMatchObject({ email: "boss@cli.io", accessRoles: [company.adminRoleId] });
    const [, payload] = token.split(".");
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString());
    expect(claims.exp - claims.iat).toBe(3600);
    expect(claims.cid).toBe(company.id);

    // The admin of the new company can create users there.
    const created2 = await call(users.POST, "/v2/users", {
      token,
      admin: true,
      body: { email: "staff@cli.io", accessRoles: [company.memberRoleId] },
    });
    expect(created2.status).toBe(201);
  });

  it("an existing e-mail joins a new company; --company picks which one a token acts in", async () => {
    const second = JSON.parse(
      (await cli("company.ts", ["create", "--name", "CLI Two", "--admin-email", "boss@cli.io"])).stdout,
    );
    const user = await User.findOne({ email: "boss@cli.io" }).lean();
    expect(user?.companies.map((entry) => entry.companyId.toHexString())).toContain(second.id);
    const token = (await cli("token.ts", ["--email", "boss@cli.io", "--company", second.id])).stdout.trim();
    const listed = await call(users.GET, "/v2/users?count=true", { token });
    expect(success(listed).data.counter).toBe(1);

    const companies = JSON.parse((await cli("company.ts", ["list"])).stdout);
    expect(companies.map((company: { name: string }) => company.name)).toEqual(
      expect.arrayContaining(["CLI Corp", "CLI Two"]),
    );
  });

  it("fails with a message on stderr and nothing on stdout", async () => {
    const attempts = [
      ["--email", "nobody@cli.io"],
      [],
      ["--email", "boss@cli.io", "--ttl", "soon"],
      ["--email", "boss@cli.io", "--ttl", "400d"],
    ];
    const results = await Promise.all(attempts.map((args) => cli("token.ts", args)));
    for (const [index, failed] of results.entries()) {
      expect(failed.code, attempts[index].join(" ")).not.toBe(0);
      expect(failed.stdout).toBe("");
      expect(failed.stderr.length).toBeGreaterThan(0);
    }
    const bad = await cli("company.ts", ["create", "--name", "X", "--admin-email", "not-an-email"]);
    expect(bad.code).not.toBe(0);
    expect(bad.stdout).toBe("");
  });
});
