/**
 * Run by `npm start` (lib/platform/cli/start.ts) before the server: connects as the server will, readies
 * the database (indexes, the bootstrap of an empty one) and prints on stdout, as JSON, the admin
 * e-mail and, on the start that created the first admin without ADMIN_PASSWORD, its generated
 * password, so that `npm start` shows it once the server answers.
 */
import { prepare } from "@/lib/platform/startup/ready";
import { runCommand } from "./run-command";

runCommand(async () => {
  const first = await prepare("server");
  process.stdout.write(
    `${JSON.stringify({ adminEmail: first.adminEmail, generatedPassword: first.generatedPassword })}\n`,
  );
});
