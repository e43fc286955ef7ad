/**
 * `npm run --silent token -- --email E [--ttl 30d] [--company ID]`: prints one access token for
 * an external system, and nothing else, on stdout (docs/api.md#tokens); its id goes to stderr.
 * `--revoke ID|TOKEN` revokes one API token; `--revoke-all --email E` every session and token
 * of the account.
 */
import { parseCommandLine } from "@/lib/base/shared/command-line";
import { ServiceError } from "@/lib/kernel/errors";
import { firstAdminLeftToServer, ready } from "@/lib/platform/startup/ready";
import { createApiToken, revokeAllTokens, revokeApiToken } from "@/lib/resources/auth/service";
import { PRINCIPAL_TTL_MS } from "@/lib/resources/credentials/sessions";
import { parseDuration, runCommand, UsageError } from "./run-command";

const usage = `Usage: npm run --silent token -- --email EMAIL [--ttl 30d] [--company COMPANY_ID]
       npm run --silent token -- --revoke TOKEN_ID_OR_TOKEN
       npm run --silent token -- --revoke-all --email EMAIL

  --email       the user the token acts for
  --ttl         lifetime: 30d (default), 12h, 15m, 90s or seconds; at most 366d
  --company     for a user of several companies, the one to act in (default: the first)
  --revoke      revokes one API token: its id (printed on stderr when issued, the token's jti) or the token
  --revoke-all  revokes every sign-in session and API token of --email

A revoked token is refused within ${PRINCIPAL_TTL_MS / 1000} seconds by every server process. Tokens also stop
working when the user is deactivated in the token's company or their password changes.`;

runCommand(async () => {
  const { values } = parseCommandLine(usage, {
    options: {
      email: { type: "string" },
      ttl: { type: "string", default: "30d" },
      company: { type: "string" },
      revoke: { type: "string" },
      "revoke-all": { type: "boolean" },
    },
  });
  if (values.revoke !== undefined) {
    await ready();
    const revoked = await revokeApiToken(values.revoke);
    console.error(revoked ? "The token is revoked." : "No such API token (already revoked or expired).");
    return;
  }
  if (!values.email) throw new UsageError("--email is required");
  if (values["revoke-all"]) {
    await ready();
    const count = await revokeAllTokens(values.email);
    console.error(`Revoked ${count} session(s) and token(s) of ${values.email}.`);
    return;
  }
  if (values.company !== undefined && !/^[0-9a-f]{24}$/i.test(values.company))
    throw new UsageError("--company must be a 24-hex id");
  const ttl = parseDuration(values.ttl);
  await ready();
  const token = await createApiToken(values.email, ttl, values.company?.toLowerCase()).catch((error: unknown) => {
    if (error instanceof ServiceError && error.code === "not_found" && firstAdminLeftToServer()) {
      throw new ServiceError(
        "not_found",
        `${error.message} The first admin is created by the server's first start (npm start), or by a CLI run with ADMIN_PASSWORD set.`,
      );
    }
    throw error;
  });
  console.error(`Token id (for --revoke): ${token.id}`);
  process.stdout.write(`${token.accessToken}\n`);
});
