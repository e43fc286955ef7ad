/**
 * Wakes this process's job runner (./runner.ts) at once when a request queued a job, instead of at
 * its next poll. The listeners live on `globalThis`: Next.js may load the route and the
 * instrumentation hook that starts the runner as separate copies of this module.
 */
const KEY = Symbol.for("usersurveys.jobs.nudge");
const store = globalThis as unknown as Record<symbol, Set<() => void> | undefined>;
const listeners = (store[KEY] ??= new Set());

export function onJobNudge(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function nudgeJobs(): void {
  for (const listener of listeners) listener();
}
