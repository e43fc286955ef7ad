import type { Document } from "bson";
import os from "node:os";
import { MongoCommandError } from "../errors";
import { executorOf } from "../query/query";
import { ttlMonitorOf } from "../storage/ttl";
import { awaitableHelloWait, helloReplicaSetFields, replicaSetConfig, replicaSetStatus, sleep } from "../wire/replset";
import { MAX_MESSAGE_SIZE } from "../wire/wire";
import { authInfo, helloAuthFields } from "./auth";
import type { Handler } from "./context";

const SERVER_VERSION = "7.0.0";
const MAX_BSON_SIZE = 16 * 1024 * 1024;

/**
 * The primary or the secondary of the replica set (replset.ts), of MongoDB 7.0's wire version; no compression;
 * SCRAM-SHA-256 (see auth.ts). An awaitable `hello` (the driver's streaming monitor, with the
 * current `topologyVersion`) is answered after `maxAwaitTimeMS`, since the topology never changes.
 */
const hello: Handler = async (cmd, ctx) => {
  const legacy = "isMaster" in cmd || "ismaster" in cmd;
  const wait = awaitableHelloWait(cmd, ctx.server.replicaSet);
  if (wait !== undefined) await sleep(wait, ctx.server.closing);
  const reply: Document = {
    helloOk: true,
    [legacy ? "ismaster" : "isWritablePrimary"]: ctx.member.role === "primary",
    ...helloReplicaSetFields(ctx.server.replicaSet, ctx.store, ctx.member),
    maxBsonObjectSize: MAX_BSON_SIZE,
    maxMessageSizeBytes: MAX_MESSAGE_SIZE,
    maxWriteBatchSize: 100_000,
    localTime: new Date(),
    logicalSessionTimeoutMinutes: 30,
    connectionId: ctx.connectionId,
    minWireVersion: 0,
    maxWireVersion: 21,
    readOnly: false,
    ...helloAuthFields(cmd, ctx),
    ok: 1,
  };
  return reply;
};

const ok: Handler = () => ({ ok: 1 });

const buildInfo: Handler = () => ({
  version: SERVER_VERSION,
  versionArray: [7, 0, 0, 0],
  gitVersion: "embedded-mongo",
  bits: 64,
  debug: false,
  maxBsonObjectSize: MAX_BSON_SIZE,
  storageEngines: ["lmdb"],
  javascriptEngine: "none",
  modules: [],
  ok: 1,
});

const serverStatus: Handler = (_cmd, ctx) => {
  const uptimeMillis = Date.now() - ctx.server.startedAt;
  return {
    host: os.hostname(),
    version: SERVER_VERSION,
    process: "embedded-mongo",
    pid: process.pid,
    uptime: Math.floor(uptimeMillis / 1000),
    uptimeMillis,
    localTime: new Date(),
    connections: { current: ctx.server.connections(), available: 10_000, totalCreated: ctx.server.totalConnections() },
    storageEngine: { name: "lmdb", supportsCommittedReads: true, persistent: true },
    mem: { resident: Math.round(process.memoryUsage().rss / 2 ** 20), virtual: 0 },
    // Readers: reads under way in slices on their own snapshot (README "Long reads yield").
    globalLock: {
      activeClients: { total: ctx.store.activeReads(), readers: ctx.store.activeReads(), writers: 0 },
    },
    metrics: { queryExecutor: { scannedObjects: executorOf(ctx.store).scannedObjects } },
    ok: 1,
  };
};

const getParameter: Handler = () => ({ featureCompatibilityVersion: { version: "7.0" }, ok: 1 });

/**
 * setParameter for the parameters this server has (the TTL monitor's); any other is refused as
 * MongoDB refuses a parameter it does not know.
 */
const setParameter: Handler = (cmd, ctx) => {
  if (ctx.db !== "admin")
    throw new MongoCommandError("Unauthorized", "setParameter may only be run against the admin database.");
  const ttl = ttlMonitorOf(ctx.store);
  const names = Object.keys(cmd).filter(
    (k) =>
      k !== "setParameter" &&
      !k.startsWith("$") &&
      !["lsid", "comment", "apiVersion", "apiStrict", "apiDeprecationErrors"].includes(k),
  );
  if (names.length === 0)
    throw new MongoCommandError("BadValue", "no option found to set, use help:true to see options ");
  const reply: Document = {};
  for (const name of names) {
    const value = cmd[name];
    if (name === "ttlMonitorSleepSecs") {
      const secs = Number(value);
      if (!Number.isInteger(secs) || secs < 1)
        throw new MongoCommandError(
          "BadValue",
          `Invalid value for parameter ttlMonitorSleepSecs: ${String(value)} is not greater than or equal to 1`,
        );
      reply.was = ttl.sleepSecs;
      ttl.setSleepSecs(secs);
    } else if (name === "ttlMonitorEnabled") {
      if (typeof value !== "boolean")
        throw new MongoCommandError("BadValue", `Invalid value for parameter ttlMonitorEnabled: ${String(value)}`);
      reply.was = ttl.enabled;
      ttl.setEnabled(value);
    } else {
      throw new MongoCommandError(
        "InvalidOptions",
        `attempted to set unrecognized parameter [${name}], use help:true to see options `,
      );
    }
  }
  return { ...reply, ok: 1 };
};

const connectionStatus: Handler = (_cmd, ctx) => ({ authInfo: authInfo(ctx), ok: 1 });

const hostInfo: Handler = () => ({
  system: {
    currentTime: new Date(),
    hostname: os.hostname(),
    numCores: os.cpus().length,
    memSizeMB: Math.round(os.totalmem() / 2 ** 20),
  },
  os: { type: os.type(), name: os.platform(), version: os.release() },
  extra: {},
  ok: 1,
});

const getCmdLineOpts: Handler = (_cmd, ctx) => ({
  argv: ["embedded-mongo"],
  parsed: { net: { port: ctx.server.port } },
  ok: 1,
});

const dbStats: Handler = (_cmd, ctx) => {
  const collections = ctx.store.collections(ctx.db);
  const objects = collections.reduce((sum, meta) => sum + ctx.store.count(meta), 0);
  return {
    db: ctx.db,
    collections: collections.length,
    views: 0,
    objects,
    indexes: collections.reduce((s, m) => s + m.indexes.length, 0),
    ok: 1,
  };
};

/** MongoDB runs the replica-set commands against `admin` only. */
function adminOnly(name: string, ctx: { db: string }): void {
  if (ctx.db !== "admin")
    throw new MongoCommandError("Unauthorized", `${name} may only be run against the admin database.`);
}

const replSetGetConfig: Handler = (_cmd, ctx) => {
  adminOnly("replSetGetConfig", ctx);
  return { config: replicaSetConfig(ctx.server.replicaSet, ctx.member), ok: 1 };
};

const replSetGetStatus: Handler = (_cmd, ctx) => {
  adminOnly("replSetGetStatus", ctx);
  const uptime = Math.floor((Date.now() - ctx.server.startedAt) / 1000);
  return { ...replicaSetStatus(ctx.server.replicaSet, ctx.store, ctx.member, uptime), ok: 1 };
};

export const adminCommands: Record<string, Handler> = {
  replSetGetConfig,
  replSetGetStatus,
  hello,
  isMaster: hello,
  ismaster: hello,
  ping: ok,
  buildInfo,
  buildinfo: buildInfo,
  endSessions: ok,
  killSessions: ok,
  refreshSessions: ok,
  killAllSessions: ok,
  serverStatus,
  getParameter,
  setParameter,
  connectionStatus,
  hostInfo,
  getCmdLineOpts,
  dbStats,
  getLog: () => ({ totalLinesWritten: 0, log: [], ok: 1 }),
  whatsmyuri: () => ({ you: "127.0.0.1", ok: 1 }),
};
