/**
 * `npm run --silent token -- --email E [--ttl 30d] [--company ID]`: prints one access token for
 * an external system, and nothing else, on stdout (contract §4).
 */
import { createApiToken } from "@/lib/services/auth";
import { ready } from "@/lib/services/init";
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
  const token = await createApiToken(values.email, ttl, values.company?.toLowerCase());
  process.stdout.write(`${token.accessToken}\n`);
});
