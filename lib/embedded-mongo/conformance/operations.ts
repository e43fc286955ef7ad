/**
 * Executing one unified-format operation through the real `mongodb` driver, and converting its
 * return value into a document the matcher can compare (spec: "Entity Test Operations").
 */
import {
  AbstractCursor,
  BulkWriteResult,
  type AnyBulkWriteOperation,
  type ClientBulkWriteModel,
  type MongoClient,
} from "mongodb";
import { EntityMap, UnsupportedError, toReadConcern, toReadPreference, toWriteConcern } from "./entities";
import { eventMismatch } from "./events";
import type { Operation } from "./loader";
import { match, show, type Doc } from "./matcher";

/** How the result is matched: a list of root-level documents, or a single value/document. */
type ResultShape = "documents" | "value";

export interface OperationOutcome {
  result: unknown;
  shape: ResultShape;
}

export interface OperationEnv {
  entities: EntityMap;
  /** The runner's internal client (for testRunner assertions). */
  internal: MongoClient;
  /** Records a fail point to disable after the test. */
  onFailPoint(client: MongoClient, failPoint: Doc): Promise<void>;
}

/** Operation names this runner implements, per object kind (used to skip tests up front). */
const SUPPORTED_OPERATIONS: Record<string, readonly string[]> = {
  collection: [
    "aggregate",
    "bulkWrite",
    "count",
    "countDocuments",
    "estimatedDocumentCount",
    "distinct",
    "find",
    "findOne",
    "findOneAndDelete",
    "findOneAndReplace",
    "findOneAndUpdate",
    "insertOne",
    "insertMany",
    "updateOne",
    "updateMany",
    "replaceOne",
    "deleteOne",
    "deleteMany",
    "createIndex",
    "dropIndex",
    "dropIndexes",
    "listIndexes",
    "listIndexNames",
    "createFindCursor",
    "drop",
    "rename",
  ],
  database: [
    "aggregate",
    "runCommand",
    "createCollection",
    "dropCollection",
    "listCollections",
    "listCollectionNames",
    "createCommandCursor",
    "runCursorCommand",
  ],
  client: ["listDatabases", "listDatabaseNames", "close", "clientBulkWrite"],
  cursor: ["iterateUntilDocumentOrError", "iterateOnce", "close"],
  session: ["endSession"],
  testRunner: [
    "failPoint",
    "assertCollectionExists",
    "assertCollectionNotExists",
    "assertIndexExists",
    "assertIndexNotExists",
    "createEntities",
    "assertSameLsidOnLastTwoCommands",
    "assertDifferentLsidOnLastTwoCommands",
    "assertSessionDirty",
    "assertSessionNotDirty",
    "assertNumberConnectionsCheckedOut",
    "waitForEvent",
    "assertEventCount",
    "wait",
  ],
};

const ALL_SUPPORTED = new Set(Object.values(SUPPORTED_OPERATIONS).flat());

/** Operations that cannot run against a standalone server, with the reason. */
const STANDALONE_IMPOSSIBLE: Record<string, string> = {
  startTransaction: "uses transactions (need a replica set or sharded cluster)",
  commitTransaction: "uses transactions (need a replica set or sharded cluster)",
  abortTransaction: "uses transactions (need a replica set or sharded cluster)",
  withTransaction: "uses transactions (need a replica set or sharded cluster)",
  assertSessionTransactionState: "uses transactions (need a replica set or sharded cluster)",
  createChangeStream: "uses change streams (need a replica set or sharded cluster)",
  targetedFailPoint: "uses targetedFailPoint (needs mongos pinning)",
  assertSessionPinned: "asserts mongos pinning (needs a sharded cluster)",
  assertSessionUnpinned: "asserts mongos pinning (needs a sharded cluster)",
};

/**
 * Why a test's operations cannot run here (checked before running it), or null.
 * `failPointsSupported`: whether the server accepted a configureFailPoint probe.
 */
export function unsupportedReason(ops: Operation[], failPointsSupported: boolean, standalone: boolean): string | null {
  for (const op of ops) {
    if (op.name === "failPoint" && op.object === "testRunner" && !failPointsSupported)
      return "uses failPoint: the server does not support configureFailPoint (fail points)";
    if (standalone && STANDALONE_IMPOSSIBLE[op.name]) return STANDALONE_IMPOSSIBLE[op.name];
    if (op.name === "loop") return "uses loop (Atlas workload executor operation) — not implemented by this runner";
    if (op.name === "runOnThread" || op.name === "waitForThread")
      return `uses ${op.name} (threads) — not implemented by this runner`;
    if (!ALL_SUPPORTED.has(op.name) && !STANDALONE_IMPOSSIBLE[op.name])
      return `operation "${op.name}" on ${op.object} is not implemented by this runner`;
  }
  return null;
}

/** Resolves `session`, `readConcern`, `readPreference`, `writeConcern` in the arguments. */
function prepareArgs(args: Doc | undefined, entities: EntityMap): Doc {
  const out: Doc = { ...(args ?? {}) };
  if (typeof out.session === "string") out.session = entities.getKind(out.session, "session").session;
  if (out.readConcern) out.readConcern = toReadConcern(out.readConcern);
  if (out.readPreference) out.readPreference = toReadPreference(out.readPreference);
  if (out.writeConcern) out.writeConcern = toWriteConcern(out.writeConcern);
  return out;
}

function returnDocument(v: unknown): "before" | "after" | undefined {
  if (v === undefined) return undefined;
  const s = String(v).toLowerCase();
  if (s !== "before" && s !== "after") throw new Error(`returnDocument must be Before or After, got ${String(v)}`);
  return s;
}

/** A BulkWriteResult (or the one inside a MongoBulkWriteError) as a plain document. */
export function bulkWriteResultToDoc(r: BulkWriteResult): Doc {
  return {
    insertedCount: r.insertedCount,
    matchedCount: r.matchedCount,
    modifiedCount: r.modifiedCount,
    deletedCount: r.deletedCount,
    upsertedCount: r.upsertedCount,
    upsertedIds: { ...r.upsertedIds },
    insertedIds: { ...r.insertedIds },
  };
}

function plain(o: object): Doc {
  return { ...(o as Doc) };
}

async function collectionOp(op: Operation, env: OperationEnv): Promise<OperationOutcome> {
  const { entities } = env;
  const coll = entities.getKind(op.object, "collection").collection;
  const a = prepareArgs(op.arguments, entities);
  const value = (result: unknown): OperationOutcome => ({ result, shape: "value" });
  switch (op.name) {
    case "aggregate": {
      const { pipeline, ...opts } = a;
      return { result: await coll.aggregate(pipeline as Doc[], opts).toArray(), shape: "documents" };
    }
    case "find": {
      const { filter, ...opts } = a;
      return { result: await coll.find((filter ?? {}) as Doc, opts).toArray(), shape: "documents" };
    }
    case "findOne": {
      const { filter, ...opts } = a;
      return value(await coll.findOne((filter ?? {}) as Doc, opts));
    }
    case "createFindCursor": {
      const { filter, ...opts } = a;
      const cursor = coll.find((filter ?? {}) as Doc, opts);
      await cursor.hasNext(); // runs the find command without consuming a document
      return value(cursor);
    }
    case "count": {
      const { filter, ...opts } = a;
      return value(await coll.count((filter ?? {}) as Doc, opts));
    }
    case "countDocuments": {
      const { filter, ...opts } = a;
      return value(await coll.countDocuments((filter ?? {}) as Doc, opts));
    }
    case "estimatedDocumentCount":
      return value(await coll.estimatedDocumentCount(a));
    case "distinct": {
      const { fieldName, filter, ...opts } = a;
      return value(await coll.distinct(String(fieldName), (filter ?? {}) as Doc, opts));
    }
    case "insertOne": {
      const { document, ...opts } = a;
      return value(plain(await coll.insertOne(document as Doc, opts)));
    }
    case "insertMany": {
      const { documents, ...opts } = a;
      const r = await coll.insertMany(documents as Doc[], opts);
      return value({ ...plain(r), insertedIds: { ...r.insertedIds } });
    }
    case "updateOne":
    case "updateMany": {
      const { filter, update, ...opts } = a;
      const fn = op.name === "updateOne" ? coll.updateOne.bind(coll) : coll.updateMany.bind(coll);
      return value(plain(await fn(filter as Doc, update as Doc, opts)));
    }
    case "replaceOne": {
      const { filter, replacement, ...opts } = a;
      return value(plain(await coll.replaceOne(filter as Doc, replacement as Doc, opts)));
    }
    case "deleteOne": {
      const { filter, ...opts } = a;
      return value(plain(await coll.deleteOne(filter as Doc, opts)));
    }
    case "deleteMany": {
      const { filter, ...opts } = a;
      return value(plain(await coll.deleteMany(filter as Doc, opts)));
    }
    case "findOneAndDelete": {
      const { filter, ...opts } = a;
      return value(await coll.findOneAndDelete(filter as Doc, opts));
    }
    case "findOneAndReplace": {
      const { filter, replacement, returnDocument: rd, ...opts } = a;
      return value(
        await coll.findOneAndReplace(filter as Doc, replacement as Doc, {
          ...opts,
          returnDocument: returnDocument(rd),
        }),
      );
    }
    case "findOneAndUpdate": {
      const { filter, update, returnDocument: rd, ...opts } = a;
      return value(
        await coll.findOneAndUpdate(filter as Doc, update as Doc, { ...opts, returnDocument: returnDocument(rd) }),
      );
    }
    case "bulkWrite": {
      const { requests, ...opts } = a;
      const r = await coll.bulkWrite(requests as AnyBulkWriteOperation<Doc>[], opts);
      return value(bulkWriteResultToDoc(r));
    }
    case "createIndex": {
      const { keys, ...opts } = a;
      return value(await coll.createIndex(keys as Doc as never, opts));
    }
    case "dropIndex": {
      const { name, ...opts } = a;
      return value(await coll.dropIndex(String(name), opts));
    }
    case "dropIndexes":
      return value(await coll.dropIndexes(a));
    case "listIndexes":
      return { result: await coll.listIndexes(a).toArray(), shape: "documents" };
    case "listIndexNames":
      return value((await coll.listIndexes(a).toArray()).map((i) => i.name));
    case "drop":
      return value(await coll.drop(a));
    case "rename": {
      const { to, ...opts } = a;
      await coll.rename(String(to), opts);
      return value(undefined);
    }
    default:
      throw new UnsupportedError(`collection operation "${op.name}" is not implemented by this runner`);
  }
}

async function databaseOp(op: Operation, env: OperationEnv): Promise<OperationOutcome> {
  const { entities } = env;
  const db = entities.getKind(op.object, "database").db;
  const a = prepareArgs(op.arguments, entities);
  const value = (result: unknown): OperationOutcome => ({ result, shape: "value" });
  switch (op.name) {
    case "aggregate": {
      const { pipeline, ...opts } = a;
      return { result: await db.aggregate(pipeline as Doc[], opts).toArray(), shape: "documents" };
    }
    case "runCommand": {
      const { command, commandName: _name, ...opts } = a;
      void _name;
      return value(await db.command(command as Doc, opts));
    }
    case "createCollection": {
      const { collection, ...opts } = a;
      await db.createCollection(String(collection), opts);
      return value(undefined);
    }
    case "dropCollection": {
      const { collection, ...opts } = a;
      return value(await db.dropCollection(String(collection), opts));
    }
    case "listCollections": {
      const { filter, ...opts } = a;
      return { result: await db.listCollections((filter ?? {}) as Doc, opts).toArray(), shape: "documents" };
    }
    case "listCollectionNames": {
      const { filter, ...opts } = a;
      const list = await db.listCollections((filter ?? {}) as Doc, { ...opts, nameOnly: true }).toArray();
      return value(list.map((c) => c.name));
    }
    case "runCursorCommand":
    case "createCommandCursor": {
      const { command, commandName: _name, batchSize, maxTimeMS, comment, ...opts } = a;
      void _name;
      const cursor = db.runCursorCommand(command as Doc, opts);
      if (batchSize !== undefined) cursor.setBatchSize(Number(batchSize));
      if (maxTimeMS !== undefined) cursor.setMaxTimeMS(Number(maxTimeMS));
      if (comment !== undefined) cursor.setComment(comment);
      if (op.name === "runCursorCommand") return { result: await cursor.toArray(), shape: "documents" };
      await cursor.hasNext();
      return value(cursor);
    }
    default:
      throw new UnsupportedError(`database operation "${op.name}" is not implemented by this runner`);
  }
}

async function clientOp(op: Operation, env: OperationEnv): Promise<OperationOutcome> {
  const { entities } = env;
  const c = entities.client(op.object);
  const a = prepareArgs(op.arguments, entities);
  switch (op.name) {
    case "listDatabases": {
      const { filter, ...opts } = a;
      const r = await c.client
        .db("admin")
        .admin()
        .listDatabases({ ...opts, ...(filter ? { filter } : {}) } as never);
      return { result: r.databases, shape: "documents" };
    }
    case "listDatabaseNames": {
      const r = await c.client
        .db("admin")
        .admin()
        .listDatabases({ ...a, nameOnly: true });
      return { result: r.databases.map((d) => d.name), shape: "value" };
    }
    case "close":
      c.events.stop();
      await c.client.close();
      return { result: undefined, shape: "value" };
    case "clientBulkWrite": {
      const { models, ...opts } = a;
      const converted = (models as Doc[]).map((m) => {
        const [kind] = Object.keys(m);
        return { name: kind, ...(m[kind] as Doc) } as unknown as ClientBulkWriteModel;
      });
      const r = await c.client.bulkWrite(converted, opts);
      return { result: clientBulkWriteResultToDoc(r as unknown as Doc), shape: "value" };
    }
    default:
      throw new UnsupportedError(`client operation "${op.name}" is not implemented by this runner`);
  }
}

export function clientBulkWriteResultToDoc(r: Doc | undefined): Doc | undefined {
  if (!r) return undefined;
  const out: Doc = {
    insertedCount: r.insertedCount,
    upsertedCount: r.upsertedCount,
    matchedCount: r.matchedCount,
    modifiedCount: r.modifiedCount,
    deletedCount: r.deletedCount,
  };
  for (const k of ["insertResults", "updateResults", "deleteResults"]) {
    const m = r[k];
    if (m instanceof Map) out[k] = Object.fromEntries([...m.entries()].map(([i, v]) => [String(i), { ...v }]));
  }
  return out;
}

async function cursorOp(op: Operation, env: OperationEnv): Promise<OperationOutcome> {
  const e = env.entities.get(op.object);
  if (e.kind !== "cursor") throw new UnsupportedError(`iterating a ${e.kind} entity is not implemented by this runner`);
  const cursor = e.cursor;
  switch (op.name) {
    case "iterateUntilDocumentOrError":
      return { result: await cursor.next(), shape: "value" };
    case "iterateOnce":
      return { result: await cursor.tryNext(), shape: "value" };
    case "close":
      await cursor.close().catch(() => undefined);
      return { result: undefined, shape: "value" };
    default:
      throw new UnsupportedError(`cursor operation "${op.name}" is not implemented by this runner`);
  }
}

async function sessionOp(op: Operation, env: OperationEnv): Promise<OperationOutcome> {
  const s = env.entities.getKind(op.object, "session").session;
  switch (op.name) {
    case "endSession":
      await s.endSession();
      return { result: undefined, shape: "value" };
    default:
      throw new UnsupportedError(`session operation "${op.name}" is not implemented by this runner`);
  }
}

class AssertionFailure extends Error {}

function lastTwoLsids(env: OperationEnv, clientId: string): [string, string] {
  const started = env.entities.client(clientId).events.observed.filter((e) => e.type === "commandStartedEvent");
  if (started.length < 2) throw new AssertionFailure(`fewer than two command started events on ${clientId}`);
  const ids = started.slice(-2).map((e) => {
    const lsid = e.command?.lsid as { id?: { buffer?: Uint8Array } } | undefined;
    if (!lsid?.id?.buffer) throw new AssertionFailure(`${e.commandName} has no lsid`);
    return Buffer.from(lsid.id.buffer).toString("hex");
  });
  return [ids[0], ids[1]];
}

async function testRunnerOp(op: Operation, env: OperationEnv): Promise<OperationOutcome> {
  const a = op.arguments ?? {};
  const none: OperationOutcome = { result: undefined, shape: "value" };
  const collectionNames = async (dbName: string) =>
    (await env.internal.db(dbName).listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
  const indexNames = async (dbName: string, coll: string) => {
    try {
      return (await env.internal.db(dbName).collection(coll).listIndexes().toArray()).map((i) => String(i.name));
    } catch (e) {
      if ((e as { code?: number }).code === 26) return [];
      throw e;
    }
  };
  switch (op.name) {
    case "failPoint": {
      const c = env.entities.client(String(a.client));
      await env.onFailPoint(c.client, a.failPoint as Doc);
      return none;
    }
    case "assertCollectionExists":
      if (!(await collectionNames(String(a.databaseName))).includes(String(a.collectionName)))
        throw new AssertionFailure(`collection ${String(a.databaseName)}.${String(a.collectionName)} does not exist`);
      return none;
    case "assertCollectionNotExists":
      if ((await collectionNames(String(a.databaseName))).includes(String(a.collectionName)))
        throw new AssertionFailure(`collection ${String(a.databaseName)}.${String(a.collectionName)} exists`);
      return none;
    case "assertIndexExists":
      if (!(await indexNames(String(a.databaseName), String(a.collectionName))).includes(String(a.indexName)))
        throw new AssertionFailure(`index ${String(a.indexName)} does not exist`);
      return none;
    case "assertIndexNotExists":
      if ((await indexNames(String(a.databaseName), String(a.collectionName))).includes(String(a.indexName)))
        throw new AssertionFailure(`index ${String(a.indexName)} exists`);
      return none;
    case "createEntities":
      await env.entities.createAll(a.entities as Doc[]);
      return none;
    case "assertSameLsidOnLastTwoCommands": {
      const [x, y] = lastTwoLsids(env, String(a.client));
      if (x !== y) throw new AssertionFailure("the last two commands have different lsids");
      return none;
    }
    case "assertDifferentLsidOnLastTwoCommands": {
      const [x, y] = lastTwoLsids(env, String(a.client));
      if (x === y) throw new AssertionFailure("the last two commands have the same lsid");
      return none;
    }
    case "assertSessionDirty":
    case "assertSessionNotDirty": {
      const s = env.entities.getKind(String(a.session), "session").session;
      const dirty = !!(s as unknown as { serverSession?: { isDirty?: boolean } }).serverSession?.isDirty;
      if (dirty !== (op.name === "assertSessionDirty"))
        throw new AssertionFailure(`session ${String(a.session)} is ${dirty ? "" : "not "}dirty`);
      return none;
    }
    case "assertNumberConnectionsCheckedOut": {
      const n = env.entities.client(String(a.client)).events.checkedOut;
      if (n !== Number(a.connections))
        throw new AssertionFailure(`expected ${String(a.connections)} connections checked out, got ${n}`);
      return none;
    }
    case "waitForEvent":
    case "assertEventCount": {
      const rec = env.entities.client(String(a.client)).events;
      const count = () => rec.observed.filter((e) => eventMismatch(a.event as Doc, e, {}) === null).length;
      if (op.name === "waitForEvent") {
        const deadline = Date.now() + 10_000;
        while (count() < Number(a.count)) {
          if (Date.now() > deadline) throw new AssertionFailure(`timed out waiting for ${show(a.event)}`);
          await new Promise((r) => setTimeout(r, 20));
        }
      } else if (count() !== Number(a.count)) {
        throw new AssertionFailure(`expected ${String(a.count)} ${show(a.event)} event(s), got ${count()}`);
      }
      return none;
    }
    case "wait":
      await new Promise((r) => setTimeout(r, Number(a.ms)));
      return none;
    default:
      throw new UnsupportedError(`testRunner operation "${op.name}" is not implemented by this runner`);
  }
}

/** Runs one operation; throws the driver's error (or an assertion failure) as is. */
export async function executeOperation(op: Operation, env: OperationEnv): Promise<OperationOutcome> {
  if (op.object === "testRunner") return testRunnerOp(op, env);
  const e = env.entities.get(op.object);
  switch (e.kind) {
    case "collection":
      return collectionOp(op, env);
    case "database":
      return databaseOp(op, env);
    case "client":
      return clientOp(op, env);
    case "cursor":
      return cursorOp(op, env);
    case "session":
      return sessionOp(op, env);
    default:
      throw new UnsupportedError(`operations on a ${e.kind} entity are not implemented by this runner`);
  }
}

/** Whether a value may be stored with saveResultAsEntity, and as which entity kind. */
export function saveResult(entities: EntityMap, id: string, result: unknown): void {
  if (result instanceof AbstractCursor) {
    entities.add({ kind: "cursor", id, cursor: result as AbstractCursor<Doc> });
    return;
  }
  if (result === undefined) throw new Error(`saveResultAsEntity ${id}: the operation returned no result`);
  entities.add({ kind: "value", id, value: result });
}

/** Matches an operation's result against `expectResult`; returns a failure text or null. */
export function checkResult(expected: unknown, outcome: OperationOutcome, entities: EntityMap): string | null {
  const m = match(expected, outcome.result, {
    root: true,
    rootElements: outcome.shape === "documents",
    ctx: {
      getEntity: (id) => entities.bsonValue(id),
      getSessionLsid: (id) => entities.sessionLsid(id),
    },
  });
  if (!m) return null;
  return `result ${m.path ? "at " + m.path + " " : ""}${m.message}`;
}
