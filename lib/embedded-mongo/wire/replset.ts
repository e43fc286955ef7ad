/**
 * The server presents itself as a replica set of two members, so that drivers use sessions,
 * retryable writes, transactions and change streams with it, and can select a secondary for a
 * `secondary` read preference: the primary, and a secondary that the same process serves on a
 * second TCP port. The secondary reads the primary's own storage, so it is never behind (the
 * state of a caught-up secondary); it cannot be elected (`priority: 0`, `votes: 0`), so `hello`
 * lists it in `passives`, as MongoDB lists such a member. It refuses writes and transactions, and
 * reads that did not opt in to a secondary, as a MongoDB secondary does ({@link secondaryRefusal}).
 * The members' addresses in `hosts`, `passives`, `primary` and `me` use the address each client
 * connected to, which is where it can reach the server again. See the README's "Replica set".
 */
import { Long, ObjectId, type Document } from "bson";
import { MongoCommandError } from "../errors";
import type { Store } from "../storage/store";

export const DEFAULT_REPLICA_SET = "rs0";

export interface ReplicaSetInfo {
  name: string;
  /** New at every start: a driver seeing another one knows the server restarted. */
  processId: ObjectId;
}

/** The primary's election; a constant, since it never loses it (the secondary cannot be elected). */
const ELECTION_ID = new ObjectId("7fffffff0000000000000001");
const TERM = Long.fromNumber(1);

export function newReplicaSet(name: string): ReplicaSetInfo {
  return { name, processId: new ObjectId() };
}

/** The topology version of this process; its counter never moves (no member ever changes state). */
function topologyVersion(info: ReplicaSetInfo): Document {
  return { processId: info.processId, counter: Long.ZERO };
}

/** What one connection sees of the set: the member it reached, and where it reaches each member. */
export interface MemberView {
  role: "primary" | "secondary";
  /** The primary's address: `host:port` on TCP, the Unix socket's path on the socket. */
  primary: string;
  /** The secondary's `host:port` (on the Unix socket: on the host the TCP ports listen on). */
  secondary: string;
  /**
   * On the Unix socket, `hello` shows the primary alone: the secondary is a TCP member, which a
   * client of the socket may not be able to authenticate to (the app's URIs connect directly).
   */
  viaSocket?: boolean;
}

/** The replica-set fields of a `hello` reply, as the member `view.role` answers them. */
export function helloReplicaSetFields(info: ReplicaSetInfo, store: Store, view: MemberView): Document {
  const time = store.clock.now();
  const date = new Date(time.high * 1000);
  const opTime = { ts: time, t: TERM };
  const primary = view.role === "primary";
  return {
    topologyVersion: topologyVersion(info),
    hosts: [view.primary],
    // A member of priority 0 is listed in `passives`, not `hosts` (drivers read from both).
    ...(view.viaSocket ? {} : { passives: [view.secondary] }),
    setName: info.name,
    setVersion: 1,
    secondary: !primary,
    ...(primary ? {} : { passive: true }),
    primary: view.primary,
    me: primary ? view.primary : view.secondary,
    ...(primary ? { electionId: ELECTION_ID } : {}),
    // Caught up: the secondary's last write is the primary's, since it reads the same storage.
    lastWrite: { opTime, lastWriteDate: date, majorityOpTime: opTime, majorityWriteDate: date },
  };
}

/**
 * `replSetGetConfig`: the set's configuration as MongoDB shows it, the secondary a member that can
 * never be elected and does not vote (so a majority is the primary alone, as `w: "majority"` is
 * answered here).
 */
export function replicaSetConfig(info: ReplicaSetInfo, view: MemberView): Document {
  const member = (_id: number, host: string, electable: boolean) => ({
    _id,
    host,
    arbiterOnly: false,
    buildIndexes: true,
    hidden: false,
    priority: electable ? 1 : 0,
    tags: {},
    secondaryDelaySecs: Long.ZERO,
    votes: electable ? 1 : 0,
  });
  return {
    _id: info.name,
    version: 1,
    term: 1,
    members: [member(0, view.primary, true), member(1, view.secondary, false)],
    protocolVersion: Long.fromNumber(1),
    writeConcernMajorityJournalDefault: true,
    settings: { chainingAllowed: true, getLastErrorModes: {}, getLastErrorDefaults: { w: 1, wtimeout: 0 } },
  };
}

/** `replSetGetStatus`: both members healthy, at the same optime (the secondary reads the same storage). */
export function replicaSetStatus(info: ReplicaSetInfo, store: Store, view: MemberView, uptime: number): Document {
  const time = store.clock.now();
  const date = new Date(time.high * 1000);
  const optime = { ts: time, t: TERM };
  const member = (_id: number, name: string, primary: boolean) => ({
    _id,
    name,
    health: 1,
    state: primary ? 1 : 2,
    stateStr: primary ? "PRIMARY" : "SECONDARY",
    uptime,
    optime,
    optimeDate: date,
    lastAppliedWallTime: date,
    lastDurableWallTime: date,
    syncSourceHost: primary ? "" : view.primary,
    syncSourceId: primary ? -1 : 0,
    infoMessage: "",
    ...(primary ? { electionId: ELECTION_ID } : {}),
    configVersion: 1,
    configTerm: 1,
    self: (view.role === "primary") === primary,
  });
  return {
    set: info.name,
    date: new Date(),
    myState: view.role === "primary" ? 1 : 2,
    term: TERM,
    syncSourceHost: view.role === "primary" ? "" : view.primary,
    syncSourceId: view.role === "primary" ? -1 : 0,
    heartbeatIntervalMillis: Long.fromNumber(2000),
    majorityVoteCount: 1,
    writeMajorityCount: 1,
    votingMembersCount: 1,
    writableVotingMembersCount: 1,
    optimes: {
      lastCommittedOpTime: optime,
      lastCommittedWallTime: date,
      appliedOpTime: optime,
      durableOpTime: optime,
      lastAppliedWallTime: date,
      lastDurableWallTime: date,
    },
    members: [member(0, view.primary, true), member(1, view.secondary, false)],
  };
}

/** Commands a secondary runs for anyone (MongoDB's `AllowedOnSecondary::kAlways`). */
const ALWAYS_ON_SECONDARY = new Set([
  "hello",
  "isMaster",
  "ismaster",
  "ping",
  "buildInfo",
  "buildinfo",
  "saslStart",
  "saslContinue",
  "endSessions",
  "killSessions",
  "refreshSessions",
  "killAllSessions",
  "serverStatus",
  "getParameter",
  "setParameter",
  "connectionStatus",
  "hostInfo",
  "getCmdLineOpts",
  "getLog",
  "whatsmyuri",
  "getMore",
  "killCursors",
  "validate",
  "configureFailPoint",
  "replSetGetConfig",
  "replSetGetStatus",
]);

/** Reads a secondary runs when the command opts in (`kOptIn`); any other command is a write. */
const OPT_IN_ON_SECONDARY = new Set([
  "find",
  "count",
  "distinct",
  "aggregate",
  "explain",
  "listCollections",
  "listIndexes",
  "listDatabases",
  "dbStats",
]);

const RETRYABLE_WRITES = new Set(["insert", "update", "delete", "findAndModify", "findandmodify"]);

/**
 * Why the secondary refuses `name`, as MongoDB's command dispatch decides on a member that is not
 * primary: nothing in a transaction; a read only with a `$readPreference` other than `primary`
 * (OP_MSG's opt-in; drivers send `primaryPreferred` on a direct connection), else `13435
 * NotPrimaryNoSecondaryOk`; a write never (`10107 NotWritablePrimary`).
 */
export function secondaryRefusal(name: string, cmd: Document): MongoCommandError | undefined {
  const inTransaction = cmd.autocommit === false;
  if (!inTransaction && ALWAYS_ON_SECONDARY.has(name)) return undefined;
  if (!inTransaction && OPT_IN_ON_SECONDARY.has(name)) {
    if (optsInToSecondary(cmd)) return undefined;
    return new MongoCommandError("NotPrimaryNoSecondaryOk", "not primary and secondaryOk=false");
  }
  // As MongoDB labels the error: a retryable write (or a commit) may be retried on the primary,
  // and a transaction's statement makes the whole transaction worth retrying.
  const commitOrAbort = name === "commitTransaction" || name === "abortTransaction";
  const retryable = commitOrAbort || (!inTransaction && cmd.txnNumber !== undefined && RETRYABLE_WRITES.has(name));
  const label = retryable ? "RetryableWriteError" : inTransaction ? "TransientTransactionError" : undefined;
  return new MongoCommandError("NotWritablePrimary", "not primary", label ? { errorLabels: [label] } : {});
}

const SECONDARY_MODES = new Set(["primaryPreferred", "secondary", "secondaryPreferred", "nearest"]);

function optsInToSecondary(cmd: Document): boolean {
  const readPreference = cmd.$readPreference as unknown;
  if (!readPreference || typeof readPreference !== "object") return false;
  const mode = (readPreference as Document).mode;
  return typeof mode === "string" && SECONDARY_MODES.has(mode);
}

/**
 * Whether an awaitable `hello` (the streaming monitor's: `topologyVersion` and `maxAwaitTimeMS`)
 * should wait: only when the client already knows this process's current topology version.
 */
export function awaitableHelloWait(cmd: Document, info: ReplicaSetInfo): number | undefined {
  const known = cmd.topologyVersion as Document | undefined;
  const wait = cmd.maxAwaitTimeMS;
  if (!known || typeof known !== "object" || wait === undefined) return undefined;
  const sameProcess = known.processId instanceof ObjectId && known.processId.equals(info.processId);
  const counter = Number(known.counter);
  if (!sameProcess || counter !== 0) return undefined;
  const ms = Number(wait);
  return Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done);
  });
}
