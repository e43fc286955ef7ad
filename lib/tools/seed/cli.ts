/**
 * `npm run seed [-- --company ID] [--users N] [--answers N]`: fills a company (default: the
 * bootstrap company, the one ADMIN_EMAIL signs in to) with demo data, showing a progress bar.
 * Idempotent. `--answers N` also gives the survey `load_test` N answers (lib/tools/seed/answers.ts).
 */
import { parseCommandLine } from "@/lib/base/shared/command-line";
import { runCommand, UsageError } from "@/lib/platform/cli/run-command";
import { ready } from "@/lib/platform/startup/ready";
import { LOAD_SURVEY_CODE, seedAnswers } from "@/lib/tools/seed/answers";
import { seedSurveys } from "@/lib/tools/seed/surveys";
import { seedDemo } from "@/lib/tools/seed/users";
import { Presets, SingleBar } from "cli-progress";

const usage = `Usage: npm run seed [-- --company COMPANY_ID] [--users N] [--answers N]

  --company  the company to fill (default: the one created on first start)
  --users    how many demo users (default 300)
  --answers  also give the survey load_test this many answers (up to 10000000)`;

runCommand(async () => {
  const { values } = parseCommandLine(usage, {
    options: { company: { type: "string" }, users: { type: "string", default: "300" }, answers: { type: "string" } },
  });
  if (values.company !== undefined && !/^[0-9a-f]{24}$/i.test(values.company))
    throw new UsageError("--company must be a 24-hex id");
  const users = Number(values.users);
  if (!Number.isInteger(users) || users < 1 || users > 100_000)
    throw new UsageError("--users must be a whole number from 1 to 100000");
  const answers = values.answers === undefined ? undefined : Number(values.answers);
  if (answers !== undefined && (!/^\d+$/.test(values.answers!) || answers > 10_000_000))
    throw new UsageError("--answers must be a whole number from 0 to 10000000");

  await ready();
  const bar = new SingleBar(
    { stream: process.stderr, format: "users [{bar}] {value}/{total}", hideCursor: true },
    Presets.shades_classic,
  );
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
  if (answers !== undefined) {
    const answersBar = new SingleBar(
      { stream: process.stderr, format: "answers [{bar}] {value}/{total}", hideCursor: true },
      Presets.shades_classic,
    );
    const load = await seedAnswers({
      companyId: result.companyId,
      answers,
      onStart: (total) => answersBar.start(total, 0),
      onProgress: (done) => answersBar.update(done),
    });
    answersBar.stop();
    console.error(
      `Company ${result.companyId}: survey ${LOAD_SURVEY_CODE} (${load.surveyId}) got ${load.created} more answers, ${answers} in all.`,
    );
  }
});
