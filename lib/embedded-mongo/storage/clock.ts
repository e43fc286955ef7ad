/**
 * The cluster time of the replica set (both members share it): a Timestamp (seconds, increment) that every
 * write takes a new value of, as MongoDB's oplog times do. Replies carry it as `$clusterTime` and
 * `operationTime`; change-stream events and resume tokens are ordered by it. A restart continues
 * after the last time the oplog recorded, so resume tokens stay ordered across restarts.
 */
import { Binary, Long, Timestamp, type Document } from "bson";

export class ClusterClock {
  private seconds = 0;
  private increment = 0;

  /** Continues after `last` (the newest time written before a restart). */
  advanceTo(last: Timestamp): void {
    const seconds = last.high;
    const increment = last.low;
    if (seconds > this.seconds || (seconds === this.seconds && increment > this.increment)) {
      this.seconds = seconds;
      this.increment = increment;
    }
  }

  /** A new time, later than every time given before. */
  tick(): Timestamp {
    const now = Math.floor(Date.now() / 1000);
    if (now > this.seconds) {
      this.seconds = now;
      this.increment = 1;
    } else {
      this.increment += 1;
    }
    return new Timestamp({ t: this.seconds, i: this.increment });
  }

  /** The latest time given (the current time with increment 0 before any write). */
  now(): Timestamp {
    if (this.seconds === 0) return new Timestamp({ t: Math.floor(Date.now() / 1000), i: 0 });
    return new Timestamp({ t: this.seconds, i: this.increment });
  }
}

const ZERO_HASH = new Binary(Buffer.alloc(20));

/** The `$clusterTime` a replica-set member gossips; unsigned (keyId 0), as without keyfile auth. */
export function clusterTimeField(time: Timestamp): Document {
  return { clusterTime: time, signature: { hash: ZERO_HASH, keyId: Long.ZERO } };
}

export function compareTimestamps(a: Timestamp, b: Timestamp): number {
  return a.high !== b.high ? (a.high < b.high ? -1 : 1) : a.low === b.low ? 0 : a.low >>> 0 < b.low >>> 0 ? -1 : 1;
}
