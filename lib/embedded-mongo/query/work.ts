/**
 * Long reads in slices. A read is written as a generator that yields at points where it may pause
 * (every {@link CHECK_EVERY} documents or index entries) and returns its answer: run at once
 * (`runNow`, for reads inside a write or a transaction) or in slices of about
 * {@link YIELD_PERIOD_MS} between which the event loop serves the other connections
 * (`runYielding`), as MongoDB yields every 10 ms (`internalQueryExecYieldPeriodMS`). A yielding
 * read runs on one LMDB snapshot (Store.readSnapshot), so pausing never changes its answer
 * (README "Long reads yield").
 */
import { performance } from "node:perf_hooks";

/** A read that may pause at each `yield` and returns a T. */
export type Work<T> = Generator<void, T, void>;

/** How much work (documents, index entries) runs between two looks at the clock. */
const CHECK_EVERY = 64;
/** How long a read works before it lets other commands run. */
const YIELD_PERIOD_MS = 10;

/** Runs a read to its end in one piece. */
export function runNow<T>(work: Work<T>): T {
  for (;;) {
    const step = work.next();
    if (step.done) return step.value;
  }
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Runs a read in slices of about {@link YIELD_PERIOD_MS}, letting the event loop run between them. */
export async function runYielding<T>(work: Work<T>): Promise<T> {
  let deadline = performance.now() + YIELD_PERIOD_MS;
  try {
    for (;;) {
      const step = work.next();
      if (step.done) return step.value;
      if (performance.now() < deadline) continue;
      await turn();
      deadline = performance.now() + YIELD_PERIOD_MS;
    }
  } finally {
    // An error thrown by the read, or one thrown while it waited: its LMDB cursors close now.
    work.return(undefined as T);
  }
}

/** Yields once every {@link CHECK_EVERY} calls: `if (due(++n)) yield;`. */
export function due(n: number): boolean {
  return n % CHECK_EVERY === 0;
}
