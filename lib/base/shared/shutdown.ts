/**
 * The drain of a server process (docs/deployment.md#processes-restarts-and-health): the server
 * entry (lib/platform/cli/server.ts) owns SIGTERM, and on it stops taking connections, marks the process
 * draining (readiness answers 503), lets the requests in flight end, then runs the stops registered
 * here: the background loops first, which give their leases back, then the database connection.
 *
 * The state lives on `globalThis`: the entry, the instrumentation hook and the route handlers are
 * separate copies of this module in one process (Next.js bundles them apart).
 */
const KEY = Symbol.for("usersurveys.shutdown");

/** Loops end before connections close: a loop's last round still writes its lease back. */
export type ShutdownPhase = "loops" | "connections";

interface ShutdownState {
  /** Set by the server entry: it runs the stops, so lib/kernel/db must not exit on the signal itself. */
  owned: boolean;
  draining: boolean;
  stops: { phase: ShutdownPhase; stop: () => Promise<void> }[];
}

function state(): ShutdownState {
  const store = globalThis as unknown as Record<symbol, ShutdownState | undefined>;
  return (store[KEY] ??= { owned: false, draining: false, stops: [] });
}

/** Called once by the server entry before it loads the app. */
export function ownShutdown(): void {
  state().owned = true;
}

/** Whether the server entry owns the process's shutdown (else lib/kernel/db ends the process on a signal). */
export function shutdownOwned(): boolean {
  return state().owned;
}

export function isDraining(): boolean {
  return state().draining;
}

export function startDraining(): void {
  state().draining = true;
}

/** Registers what to stop when the process drains (a loop, a connection); runs once. */
export function onShutdown(phase: ShutdownPhase, stop: () => Promise<void>): void {
  state().stops.push({ phase, stop });
}

/** Runs the registered stops, loops first; a failing stop is reported and the others still run. */
export async function runShutdown(report: (error: unknown) => void): Promise<void> {
  const stops = state().stops.splice(0);
  for (const phase of ["loops", "connections"] as const) {
    await Promise.all(stops.filter((entry) => entry.phase === phase).map((entry) => entry.stop().catch(report)));
  }
}
