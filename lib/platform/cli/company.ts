/**
 * `npm run --silent company -- create --name N --admin-email E [--admin-password P]`: a new company
 * with its own Admin and Member roles and admin user; prints the company as JSON (docs/api.md#companies-and-bootstrap).
 * `npm run --silent company -- list`: the companies as JSON.
 */
import { Password } from "@/lib/base/schemas/common";
import { parseCommandLine } from "@/lib/base/shared/command-line";
import { ready } from "@/lib/platform/startup/ready";
import { CompanyName } from "@/lib/resources/companies/contract";
import { createCompany, listCompanies } from "@/lib/resources/spanning/companies";
import { Email } from "@/lib/resources/users/contract";
import { randomBytes } from "node:crypto";
import { runCommand, UsageError } from "./run-command";

const usage = `Usage:
  npm run --silent company -- create --name NAME --admin-email EMAIL [--admin-password PASSWORD]
  npm run --silent company -- list

create  a company with the roles Admin and Member and its admin user. An e-mail that already has
        an account joins the new company as its admin and keeps its password. Without
        --admin-password a password is generated and printed once on stderr.
list    every company.`;

runCommand(async () => {
  const { values, positionals } = parseCommandLine(usage, {
    options: {
      name: { type: "string" },
      "admin-email": { type: "string" },
      "admin-password": { type: "string" },
    },
    allowPositionals: true,
  });
  const [command, ...rest] = positionals;
  if (rest.length > 0) throw new UsageError(`Unexpected arguments: ${rest.join(" ")}`);

  if (command === "list") {
    await ready();
    process.stdout.write(`${JSON.stringify(await listCompanies())}\n`);
    return;
  }
  if (command !== "create")
    throw new UsageError(command ? `Unknown command: ${command}` : "Name a command: create or list");

  const name = CompanyName.safeParse(values.name ?? "");
  if (!name.success) throw new UsageError("--name is required (1 to 200 characters)");
  const email = Email.safeParse(values["admin-email"] ?? "");
  if (!email.success) throw new UsageError("--admin-email must be an e-mail address");
  const given = values["admin-password"];
  if (given !== undefined && !Password.safeParse(given).success)
    throw new UsageError("--admin-password must be 8 to 256 characters");
  const password = given ?? randomBytes(12).toString("base64url");

  await ready();
  const created = await createCompany({ name: name.data, adminEmail: email.data, adminPassword: password });
  if (created.adminExisted) {
    console.error(`${email.data} already had an account: it joined the company as its admin and keeps its password.`);
  } else if (given === undefined) {
    console.error(`Generated password of ${email.data} (shown only now): ${password}`);
  }
  process.stdout.write(
    `${JSON.stringify({
      id: created.company._id,
      name: created.company.name,
      adminUserId: created.adminUserId,
      adminEmail: email.data,
      adminRoleId: created.adminRoleId,
      memberRoleId: created.memberRoleId,
    })}\n`,
  );
});
