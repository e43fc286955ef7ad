/**
 * `npm run seed [-- --company ID] [--users N]`: fills a company (default: the bootstrap company,
 * the one ADMIN_EMAIL signs in to) with demo data, showing a progress bar. Idempotent.
 */
import { Presets, SingleBar } from "cli-progress";
import { ready } from "@/lib/services/init";
import { seedDemo } from "@/lib/seed/users";
import { seedSurveys } from "@/lib/seed/surveys";
import { parseCommandLine } from "@/lib/shared/command-line";
import { runCommand, UsageError } from "./run-command";

const usage = `Usage: npm run seed [-- --company COMPANY_ID] [--users N]

  --company  the company to fill (default: the one created on first start)
  --users    how many demo users (default 300)`;

runCommand(async () => {
  const { values } = parseCommandLine(usage, {
    options: { company: { type: "string" }, users: { type: "string", default: "300" } },
  });
  if (values.company !== undefined && !/^[0-9a-f]{24}$/i.test(values.company)) throw new UsageError("--company must be a 24-hex id");
  const users = Number(values.users);
  if (!Number.isInteger(users) || users < 1 || users > 100_000) throw new UsageError("--users must be a whole number from 1 to 100000");

  await ready();
  const bar = new SingleBar({ stream: process.stderr, format: "users [{bar}] {value}/{total}", hideCursor: true }, Presets.shades_classic);
  const result = await seedDemo({
    companyId: values.company?.toLowerCase(),
    users,
    onStart: (total) => bar.start(total, 0),
    onProgress: (done) => bar.update(done),
  });
  bar.stop();
  const { created } = result;
  console.error(
    `Company ${result.companyId}: created ${created.users} users, ${created.jobTitles} job titles, ` +
      `${created.properties} properties, ${created.bots} bots (existing records were left as they were).`,
  );
  const surveys = (await seedSurveys({ companyId: result.companyId })).created;
  console.error(
    `Company ${result.companyId}: created ${surveys.surveys} surveys with ${surveys.chats} chats, ${surveys.questions} questions ` +
      `and ${surveys.answers} answers (existing records were left as they were).`,
  );
});
