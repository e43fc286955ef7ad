/**
 * The events half of `npm run bench:api` (docs/benchmarks.md#events-and-webhooks): what writing an
 * event adds to a change, and how many webhook deliveries a second one server makes to a local
 * receiver.
 */
import { newEventDoc } from "@/lib/resources/events/repository";
import { newRevisionDoc, type LeanSurvey } from "@/lib/resources/surveys/repository";
import { newDoc } from "@/lib/resources/users/repository";
import { ObjectId, type Db, type MongoClient } from "mongodb";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { table, type BenchTable, type Figures } from "./figures";

export interface EventsBench {
  client: MongoClient;
  database: Db;
  companyId: ObjectId;
  roleId: ObjectId;
  headers: Record<string, string>;
  base: string;
  table: BenchTable;
  setting: string;
  /** Events delivered in the delivery run. */
  deliveries: number;
}

const WRITE = "driver: insert a user (what POST /v2/users writes)";
const WRITE_TX = "driver: the same insert alone in a transaction";
const WRITE_EVENT = "driver: the same insert and its event, one transaction";
const UPDATE = "driver: update a survey and insert its revision";
const UPDATE_EVENT = "driver: the same update, revision and event, one transaction";

export async function benchEvents(ctx: EventsBench): Promise<void> {
  const { client, database, companyId } = ctx;
  const users = database.collection("users");
  const surveys = database.collection<LeanSurvey>("surveys");
  const revisions = database.collection("surveyrevisions");
  const events = database.collection("events");
  let serial = 0;
  const user = () =>
    newDoc({
      email: `event.${Date.now()}.${serial++}@bench.example`,
      name: { displayName: "Event Bench", names: "Event", lastName: "Bench", secondLastName: "" },
      accessRoles: [ctx.roleId],
      companies: [
        { _id: new ObjectId(), companyId, isActive: true, hierarchy: { boss: [], peers: [], subordinate: [] } },
      ],
      createdAt: new Date(),
    });
  const event = (type: string, id: ObjectId, changes: string[]) =>
    newEventDoc({
      company: companyId,
      type,
      resource: { type: type.split(".")[0], id: id.toHexString() },
      changes,
      actor: null,
      requestId: null,
      createdAt: new Date(),
    });
  const sample = await surveys
    .find({ company: companyId }, { projection: { _id: 1 } })
    .limit(1000)
    .toArray();
  let turn = 0;
  const updateSurvey = async (options: { session?: import("mongodb").ClientSession } = {}) => {
    const _id = sample[turn++ % sample.length]._id as ObjectId;
    const now = new Date();
    const updated = await surveys.findOneAndUpdate(
      { _id },
      { $set: { name: `Event bench ${serial++}`, modifiedAt: now }, $inc: { __v: 1 } },
      { ...options, returnDocument: "after" },
    );
    await revisions.insertOne(newRevisionDoc(updated!), options);
    return _id;
  };
  const inTransaction = async (work: (session: import("mongodb").ClientSession) => Promise<void>) => {
    const session = client.startSession();
    try {
      await session.withTransaction(() => work(session));
    } finally {
      await session.endSession();
    }
  };

  const rows: Figures[] = [];
  rows.push(await ctx.table.driver(WRITE, () => users.insertOne(user())));
  rows.push(
    await ctx.table.driver(WRITE_TX, () =>
      inTransaction(async (session) => void (await users.insertOne(user(), { session }))),
    ),
  );
  rows.push(
    await ctx.table.driver(WRITE_EVENT, () =>
      inTransaction(async (session) => {
        const doc = user();
        await users.insertOne(doc, { session });
        await events.insertOne(event("user.created", doc._id, ["email", "name"]), { session });
      }),
    ),
  );
  if (sample.length > 0) {
    rows.push(await ctx.table.driver(UPDATE, () => updateSurvey()));
    rows.push(
      await ctx.table.driver(UPDATE_EVENT, () =>
        inTransaction(async (session) => {
          const id = await updateSurvey({ session });
          await events.insertOne(event("survey.updated", id, ["name"]), { session });
        }),
      ),
    );
  }
  const cost = (plain: string, withEvent: string) => {
    const a = rows.find((row) => row.name === plain)!;
    const b = rows.find((row) => row.name === withEvent)!;
    return `${b.rps.toFixed(0)} writes/s with the event against ${a.rps.toFixed(0)} without, ${(100 * (1 - b.rps / a.rps)).toFixed(0)}% fewer (p50 ${a.p50} → ${b.p50} ms)`;
  };
  const delivered = await benchDeliveries(ctx);
  const lines = [
    "",
    `bench:api — events: a change alone and with its event, through the driver (no HTTP), ${ctx.setting}`,
    "",
    ...table([ctx.table.floor.figures(), ...rows]),
    "",
    `a user's insert: ${cost(WRITE, WRITE_EVENT)}; of which the transaction alone: ${cost(WRITE, WRITE_TX).replace("with the event", "in a transaction")}`,
    ...(sample.length > 0 ? [`a survey's update: ${cost(UPDATE, UPDATE_EVENT)}`] : []),
    "The HTTP rows of POST /v2/users and PATCH /v2/surveys/{id} above include their events.",
    "",
    `webhook deliveries: ${delivered.count} events to one local receiver in ${delivered.seconds.toFixed(1)} s, ${(delivered.count / delivered.seconds).toFixed(0)} deliveries/s (the server's own delivery loop, signed, each answered 200)`,
    "",
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}

/**
 * A webhook to a receiver in this process, created through the API; then `deliveries` events
 * committed at once (as a burst of changes would), timed until the receiver has had every one.
 */
async function benchDeliveries(ctx: EventsBench): Promise<{ count: number; seconds: number }> {
  const seen = new Set<string>();
  let done: () => void = () => undefined;
  const all = new Promise<void>((resolve) => (done = resolve));
  const receiver = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      seen.add(String(request.headers["webhook-id"]));
      response.end();
      if (seen.size >= ctx.deliveries) done();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  try {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const created = await fetch(`${ctx.base}/v2/webhooks`, {
      method: "POST",
      headers: { ...ctx.headers, admin: "true", "content-type": "application/json" },
      body: JSON.stringify({ url, events: ["user.*"], description: "bench:api" }),
    });
    if (created.status !== 201)
      throw new Error(`creating the webhook answered ${created.status}: ${await created.text()}`);
    const started = performance.now();
    const docs = Array.from({ length: ctx.deliveries }, () => {
      const id = new ObjectId();
      return newEventDoc({
        company: ctx.companyId,
        type: "user.updated",
        resource: { type: "user", id: id.toHexString() },
        changes: ["phone"],
        actor: null,
        requestId: null,
        createdAt: new Date(),
      });
    });
    await ctx.database.collection("events").insertMany(docs);
    await all;
    return { count: seen.size, seconds: (performance.now() - started) / 1000 };
  } finally {
    await new Promise((resolve) => receiver.close(resolve));
  }
}
