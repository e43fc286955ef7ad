/**
 * The server presents itself as the primary of a replica set of one member, so that drivers use
 * sessions, retryable writes, transactions and change streams with it. The member's address in
 * `hosts`, `primary` and `me` is the one each client connected to, which is where it can reach the
 * server again.
 */
import { Long, ObjectId, type Document } from "bson";
import type { Store } from "../storage/store";

export const DEFAULT_REPLICA_SET = "rs0";

export interface ReplicaSetInfo {
  name: string;
  /** New at every start: a driver seeing another one knows the server restarted. */
  processId: ObjectId;
}

/** The election of the one member; a constant, since it never loses it. */
const ELECTION_ID = new ObjectId("7fffffff0000000000000001");
const TERM = Long.fromNumber(1);

export function newReplicaSet(name: string): ReplicaSetInfo {
  return { name, processId: new ObjectId() };
}

/** The topology version of this process; its counter never moves (the member never changes state). */
function topologyVersion(info: ReplicaSetInfo): Document {
  return { processId: info.processId, counter: Long.ZERO };
}

/** The replica-set fields of a `hello` reply, as a primary answers them. */
export function helloReplicaSetFields(info: ReplicaSetInfo, store: Store, me: string): Document {
  const time = store.clock.now();
  const date = new Date(time.high * 1000);
  const opTime = { ts: time, t: TERM };
  return {
    topologyVersion: topologyVersion(info),
    hosts: [me],
    setName: info.name,
    setVersion: 1,
    secondary: false,
    primary: me,
    me,
    electionId: ELECTION_ID,
    lastWrite: { opTime, lastWriteDate: date, majorityOpTime: opTime, majorityWriteDate: date },
  };
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
