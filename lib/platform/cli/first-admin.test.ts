import * as login from "@/app/api/auth/login/route";
import { Meta } from "@/lib/kernel/models";
import { prepare } from "@/lib/platform/startup/ready";
import { Company } from "@/lib/resources/companies/repository";
import { Credential } from "@/lib/resources/credentials/repository";
import { AccessRole } from "@/lib/resources/reference/repository";
import { User } from "@/lib/resources/users/repository";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call } from "@/lib/tools/testing/http";
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeEach, describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = path.resolve(__dirname, "..", "..", "..");
const tsx = path.join(root, "node_modules", ".bin", "tsx");

// A CLI run on an empty database, before the server has served anything: whose first admin is it?
describe("the first admin when a CLI runs before the server", { timeout: 120_000 }, () => {
  const db = useTestDatabase();
  const folders: string[] = [];
  const saved = { email: process.env.ADMIN_EMAIL, password: process.env.ADMIN_PASSWORD };

  beforeEach(async () => {
    await db.clear();
    delete process.env.ADMIN_EMAIL;
    delete process.env.ADMIN_PASSWORD;
  });

  afterAll(async () => {
    for (const [key, value] of [
      ["ADMIN_EMAIL", saved.email],
      ["ADMIN_PASSWORD", saved.password],
    ] as const) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
  });

  /** A CLI run in `cwd` with neither ADMIN_EMAIL nor ADMIN_PASSWORD in its environment. */
  const cli = async (cwd: string, script: string, args: string[]) => {
    // NODE_ENV as `next start` has it (Vitest sets "test", a mode in which Next.js skips .env.local);
    // an undefined variable is left out of the child's environment.
    const env = {
      ...process.env,
      NODE_ENV: "production",
      ADMIN_EMAIL: undefined,
      ADMIN_PASSWORD: undefined,
      MONGODB_URI: db.uri,
      TSX_TSCONFIG_PATH: path.join(root, "tsconfig.json"),
    } as const;
    try {
      const { stdout, stderr } = await run(tsx, [path.join(root, "lib", "platform", "cli", script), ...args], {
        cwd,
        env,
        timeout: 90_000,
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  };
  const companyList = (cwd: string) => cli(cwd, "company.ts", ["list"]);

  const signIn = (email: string, password: string) =>
    call(login.POST, "/api/auth/login", { body: { email, password } });

  it("without ADMIN_PASSWORD, a CLI leaves the first admin to the server, which sets its ADMIN_PASSWORD", async () => {
    const listed = await companyList(root);
    expect(JSON.parse(listed.stdout).map((company: { name: string }) => company.name)).toEqual(["Default company"]);
    expect(listed.stderr).not.toMatch(/password/i);
    expect(await AccessRole.countDocuments()).toBe(2);
    expect(await User.countDocuments()).toBe(0);
    expect(await Credential.countDocuments()).toBe(0);
    expect((await Meta.findById("bootstrap").lean())?.done).toBeFalsy();
    const token = await cli(root, "token.ts", ["--email", "admin@example.com"]);
    expect(token.code).toBe(1);
    expect(token.stderr.trim()).toBe(
      "No user has the e-mail admin@example.com. The first admin is created by the server's first start (npm start), or by a CLI run with ADMIN_PASSWORD set.",
    );

    // The server starts with its configuration and completes the bootstrap in the same company.
    process.env.ADMIN_EMAIL = "Server.Admin@Example.com";
    process.env.ADMIN_PASSWORD = "the server's own password";
    const first = await prepare("server");
    expect(first).toEqual({ adminEmail: "server.admin@example.com", complete: true });
    expect(await Company.countDocuments()).toBe(1);
    expect((await signIn("server.admin@example.com", "the server's own password")).status).toBe(200);
  });

  it("reads ADMIN_EMAIL and ADMIN_PASSWORD from the .env files, as the server does", async () => {
    const folder = await mkdtemp(path.join(tmpdir(), "usersurveys-envfiles-"));
    folders.push(folder);
    await writeFile(path.join(folder, ".env"), "ADMIN_EMAIL=ignored@example.com\nADMIN_PASSWORD=overridden\n");
    await writeFile(
      path.join(folder, ".env.local"),
      "ADMIN_EMAIL=boss@envfile.test\nADMIN_PASSWORD=from the env file\n",
    );

    await companyList(folder);
    expect((await User.find().lean()).map((user) => user.email)).toEqual(["boss@envfile.test"]);
    expect((await Meta.findById("bootstrap").lean())?.done).toBe(true);
    expect((await signIn("boss@envfile.test", "from the env file")).status).toBe(200);
  });
});
