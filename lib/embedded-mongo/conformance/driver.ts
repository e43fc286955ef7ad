/**
 * Known limitations of the Node.js driver that make some spec tests impossible to pass whatever
 * the server does. Each one is probed at start-up (so the skip disappears once the driver
 * changes), and a test is skipped only when its operations hit a confirmed limitation.
 */
import { MongoClient, type CommandStartedEvent } from "mongodb";
import type { Operation } from "./loader";
import type { Doc } from "./matcher";

export interface DriverQuirks {
  /**
   * The driver replaces `_id: null` with a generated ObjectId before sending insertOne /
   * insertMany / bulkWrite insertOne (NODE-6468; the Node driver's own spec runner skips these
   * "create-null-ids" tests). Confirmed by sending one insert and looking at the command.
   */
  rewritesNullId: boolean;
}

const PROBE_DB = "conformance_runner_probe";

export async function probeDriver(uri: string): Promise<DriverQuirks> {
  const client = new MongoClient(uri, { monitorCommands: true, serverSelectionTimeoutMS: 10_000 });
  let sentId: unknown = "not observed";
  client.on("commandStarted", (e: CommandStartedEvent) => {
    if (e.commandName === "insert") sentId = (e.command.documents as Doc[] | undefined)?.[0]?._id;
  });
  try {
    await client.connect();
    await client
      .db(PROBE_DB)
      .collection("probe")
      .insertOne({ _id: null } as unknown as Doc);
  } catch {
    // The insert itself may fail on the server; only what the driver sent matters.
  } finally {
    await client
      .db(PROBE_DB)
      .dropDatabase()
      .catch(() => undefined);
    await client.close().catch(() => undefined);
  }
  return { rewritesNullId: sentId !== null && sentId !== "not observed" };
}

function hasNullId(doc: unknown): boolean {
  return !!doc && typeof doc === "object" && "_id" in (doc as Doc) && (doc as Doc)._id === null;
}

/** Why the driver cannot run these operations as the test means them, or null. */
export function driverLimitation(ops: Operation[], quirks: DriverQuirks): string | null {
  if (!quirks.rewritesNullId) return null;
  for (const op of ops) {
    const a = op.arguments ?? {};
    const inserts =
      (op.name === "insertOne" && hasNullId(a.document)) ||
      (op.name === "insertMany" && Array.isArray(a.documents) && a.documents.some(hasNullId)) ||
      (op.name === "bulkWrite" &&
        Array.isArray(a.requests) &&
        (a.requests as Doc[]).some((r) => hasNullId((r.insertOne as Doc | undefined)?.document)));
    if (inserts)
      return `driver limitation: the Node.js driver replaces _id: null with a generated ObjectId before ${op.name} (NODE-6468; skipped by the driver's own spec runner too)`;
  }
  return null;
}
