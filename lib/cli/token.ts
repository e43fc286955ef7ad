/**
 * `npm run --silent token -- --email E [--ttl 30d] [--company ID]`: prints one access token for
 * an external system, and nothing else, on stdout (contract §4).
 */
import { createApiToken } from "@/lib/services/auth";
import { ServiceError } from "@/lib/services/errors";
import { firstAdminLeftToServer, ready } from "@/lib/services/init";
import { parseCommandLine } from "./args";
import { parseDuration, runCommand, UsageError } from "./run-command";

const usage = `Usage: npm run --silent token -- --email EMAIL [--ttl 30d] [--company COMPANY_ID]

  --email    the user the token acts for
  --ttl      lifetime: 30d (default), 12h, 15m, 90s or seconds; at most 366d
  --company  for a user of several companies, the one to act in (default: the first)

The token is revoked when its session is deleted, and stops working when the user is deactivated.`;

runCommand(async () => {
  const { values } = parseCommandLine(usage, {
    options: {
      email: { type: "string" },
      ttl: { type: "string", default: "30d" },
      company: { type: "string" },
    },
  });
  if (!values.email) throw new UsageError("--email is required");
  if (values.company !== undefined && !/^[0-9a-f]{24}$/i.test(values.company)) throw new UsageError("--company must be a 24-hex id");
  const ttl = parseDuration(values.ttl);
  await ready();
  const token = await createApiToken(values.email, ttl, values.company?.toLowerCase()).catch((error: unknown) => {
    if (error instanceof ServiceError && error.code === "not_found" && firstAdminLeftToServer()) {
      throw new ServiceError("not_found", `${error.message} The first admin is created by the server's first start (npm start), or by a CLI run with ADMIN_PASSWORD set.`);
    }
    throw error;
  });
  process.stdout.write(`${token.accessToken}\n`);
});
