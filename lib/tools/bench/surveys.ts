/**
 * The surveys half of `npm run bench:api` (docs/benchmarks.md): 10,000 surveys with their chats and
 * questions and 200,000 answers in the bench company, then the list, a search, the survey of an
 * answer, a survey with `populate=true` and a PATCH under load, each alternated with slices of the
 * framework floor (lib/tools/bench/figures.ts), and a driver baseline. Prints figures; asserts nothing.
 */
import { newAnswerDoc } from "@/lib/resources/answers/repository";
import { newChatDoc, newDoc, newQuestionDoc, newRevisionDoc } from "@/lib/resources/surveys/repository";
import { Presets, SingleBar } from "cli-progress";
import { ObjectId, type Db, type Document } from "mongodb";
import { table, target, type BenchTable, type Figures } from "./figures";

export interface SurveyBenchContext {
  database: Db;
  companyId: ObjectId;
  /** `Authorization` of an admin. */
  headers: Record<string, string>;
  base: string;
  surveys: number;
  answers: number;
  /** This table's cases and floor, apart from the users' (the machine's speed drifts). */
  table: BenchTable;
  /** How the run was set up, for the table's title. */
  setting: string;
}

const TOPICS = [
  "Onboarding",
  "Work climate",
  "Exit interview",
  "Training",
  "Customer satisfaction",
  "Remote work",
  "Benefits",
  "Manager review",
  "Events",
  "IT support",
  "Canteen",
  "Wellbeing",
  "Safety",
  "Diversity",
  "Leadership",
  "Tools",
  "Recruiting",
  "Facilities",
  "Travel",
  "Engagement",
];
const CHATS_PER_SURVEY = 2;
const QUESTIONS_PER_CHAT = 3;
const BATCH = 1000;

export async function benchSurveys(ctx: SurveyBenchContext): Promise<void> {
  const roles = (
    await ctx.database
      .collection("accessroles")
      .find({ company: ctx.companyId }, { projection: { _id: 1 } })
      .toArray()
  ).map((role) => role._id);
  const data = await insertSurveys(ctx, roles);
  const { base, headers } = ctx;
  const admin = { ...headers, admin: "true" };
  const search = "onboarding";
  const { measure, driver } = ctx.table;
  const results: Figures[] = [];

  results.push(await measure("GET /v2/surveys (default page)", { url: `${base}/v2/surveys`, headers }));
  results.push(
    await measure(`GET /v2/surveys?search=${search}`, { url: `${base}/v2/surveys?search=${search}`, headers }),
  );
  let nextAnswer = 0;
  results.push(
    await measure("GET /v2/surveys?answer={uuid}", {
      url: `${base}/v2/surveys`,
      headers,
      requests: [
        {
          setupRequest: (request) => ({
            ...request,
            path: `/v2/surveys?answer=${data.answers[nextAnswer++ % data.answers.length]}`,
          }),
        },
      ],
    }),
  );
  let nextSurvey = 0;
  results.push(
    await measure("GET /v2/surveys/{id}?populate=true", {
      url: `${base}/v2/surveys`,
      headers: admin,
      requests: [
        {
          setupRequest: (request) => ({
            ...request,
            path: `/v2/surveys/${data.surveys[nextSurvey++ % data.surveys.length]}?populate=true`,
          }),
        },
      ],
    }),
  );
  let serial = 0;
  results.push(
    await measure("PATCH /v2/surveys/{id}", {
      url: `${base}/v2/surveys`,
      method: "PATCH",
      headers: { ...admin, "content-type": "application/json" },
      requests: [
        {
          setupRequest: (request) => {
            const n = serial++;
            return {
              ...request,
              path: `/v2/surveys/${data.surveys[n % data.surveys.length]}`,
              body: JSON.stringify({ name: `Renamed ${n}`, permissions: roles[n % roles.length].toHexString() }),
            };
          },
        },
      ],
    }),
  );
  const collection = ctx.database.collection("surveys");
  results.push(
    await driver("driver: the default survey list query, no HTTP", () =>
      collection.find({ company: ctx.companyId, isActive: true }).sort({ modifiedAt: -1, _id: -1 }).limit(10).toArray(),
    ),
  );
  report(ctx, [ctx.table.floor.figures(), ...results], search, data.searchMatches);
}

interface BenchData {
  surveys: string[];
  answers: string[];
  searchMatches: number;
}

/** Written straight through the driver, in the shapes the services write. */
export async function insertSurveys(
  ctx: Pick<SurveyBenchContext, "database" | "companyId" | "surveys" | "answers">,
  roles: ObjectId[],
): Promise<BenchData> {
  const { database, companyId } = ctx;
  const total = ctx.surveys;
  const answersPerSurvey = Math.floor(ctx.answers / total);
  const extraAnswers = ctx.answers - answersPerSurvey * total;
  const surveyIds: string[] = [];
  const answerUuids: string[] = [];
  let searchMatches = 0;
  const users = (
    await database
      .collection("users")
      .find({ "companies.companyId": companyId }, { projection: { _id: 1 } })
      .limit(1000)
      .toArray()
  ).map((u) => u._id);

  const bar = new SingleBar(
    {
      stream: process.stderr,
      format: "inserting surveys [{bar}] {value}/{total}",
      noTTYOutput: true,
      notTTYSchedule: 5000,
    },
    Presets.shades_classic,
  );
  const started = performance.now();
  bar.start(total, 0);
  const now = Date.now();
  for (let start = 0; start < total; start += BATCH) {
    const surveys: Document[] = [];
    const revisions: Document[] = [];
    const chats: Document[] = [];
    const questions: Document[] = [];
    const answers: Document[] = [];
    for (let i = start; i < Math.min(start + BATCH, total); i++) {
      const _id = new ObjectId();
      if (i % 10 === 0) surveyIds.push(_id.toHexString());
      const name = `${TOPICS[i % TOPICS.length]} ${Math.floor(i / TOPICS.length) + 1}`;
      const version = i % 2 === 0 ? 1 : 2;
      // One in 23 inactive (not a divisor of the topic count, so every topic has active surveys).
      const isActive = i % 23 !== 0;
      if (isActive && name.toLowerCase().startsWith("onboarding")) searchMatches++;
      // Ten surveys per second of history: many share a modifiedAt.
      const at = new Date(now - Math.floor((total - i) / 10) * 1000);
      const survey = newDoc({
        _id,
        code: `bench_${i}`,
        name,
        version,
        company: companyId,
        isActive,
        permissions: version === 1 ? [roles[i % roles.length]] : [],
        permissionsV2:
          version === 2 ? [{ accessRole: roles[i % roles.length], canAnswer: true, canViewAnswers: false }] : [],
        createdAt: at,
      });
      surveys.push(survey);
      revisions.push(newRevisionDoc(survey));

      const questionIds: [ObjectId, ObjectId][] = [];
      for (let c = 0; c < CHATS_PER_SURVEY; c++) {
        const chatId = new ObjectId();
        chats.push(
          newChatDoc({
            _id: chatId,
            survey: _id,
            company: companyId,
            name: `Part ${c + 1}`,
            order: c + 1,
            createdAt: at,
          }),
        );
        for (let q = 0; q < QUESTIONS_PER_CHAT; q++) {
          const questionId = new ObjectId();
          questionIds.push([chatId, questionId]);
          questions.push(
            newQuestionDoc({
              _id: questionId,
              chat: chatId,
              survey: _id,
              company: companyId,
              text: `Question ${q + 1}`,
              type: "rating",
              options: [],
              order: q + 1,
              createdAt: at,
            }),
          );
        }
      }
      const count = answersPerSurvey + (i < extraAnswers ? 1 : 0);
      for (let a = 0; a < count; a++) {
        const uuid = new ObjectId();
        if (answerUuids.length < 10_000 && a === 0) answerUuids.push(uuid.toHexString());
        const [chat, question] = questionIds[a % questionIds.length];
        // Each answer a response of its own, as if every respondent answered one question.
        answers.push(
          newAnswerDoc({
            uuid,
            company: companyId,
            survey: _id,
            chat,
            question,
            user: users[(i + a) % users.length] ?? null,
            value: 1 + (a % 5),
            response: uuid,
            position: 0,
            createdAt: at,
          }),
        );
      }
    }
    await Promise.all([
      database.collection("surveys").insertMany(surveys, { ordered: false }),
      database.collection("surveyrevisions").insertMany(revisions, { ordered: false }),
      database.collection("surveychats").insertMany(chats, { ordered: false }),
      database.collection("questions").insertMany(questions, { ordered: false }),
      answers.length ? database.collection("answers").insertMany(answers, { ordered: false }) : undefined,
    ]);
    bar.update(Math.min(start + BATCH, total));
  }
  bar.stop();
  process.stderr.write(
    `Inserted ${total} surveys (${total * CHATS_PER_SURVEY} chats, ${total * CHATS_PER_SURVEY * QUESTIONS_PER_CHAT} questions) and ${ctx.answers} answers in ${((performance.now() - started) / 1000).toFixed(1)} s.\n`,
  );
  return { surveys: surveyIds, answers: answerUuids, searchMatches };
}

function report(ctx: SurveyBenchContext, results: Figures[], search: string, searchMatches: number): void {
  const byName = (prefix: string) => results.find((r) => r.name.startsWith(prefix));
  const list = byName("GET /v2/surveys (default");
  const searched = byName("GET /v2/surveys?search");
  const answer = byName("GET /v2/surveys?answer");
  const populate = byName("GET /v2/surveys/{id}?populate");
  const lines = [
    "",
    `bench:api surveys — ${ctx.surveys} surveys (${CHATS_PER_SURVEY} chats of ${QUESTIONS_PER_CHAT} questions each) and ${ctx.answers} answers in one company, ${ctx.setting}`,
    "",
    ...table(results),
    "",
    `search=${search} matches ${searchMatches} active surveys by name; answer= and populate rotate over ${ctx.surveys / 10} surveys; each PATCH renames and adds a role.`,
    "",
    "Targets (figures, not assertions):",
    target(
      "list p50 < 15 ms (default page, search, answer)",
      [list, searched, answer].every((r) => r !== undefined && r.p50 < 15),
    ),
    target("populate p50 < 25 ms", populate !== undefined && populate.p50 < 25),
    "",
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}
