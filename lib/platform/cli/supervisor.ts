/**
 * Keeps a child process (the embedded database of `npm start`) running: when it crashes or is
 * killed, it is started again after a delay that doubles with each failure in a row (up to a ceiling), and
 * every death and restart is logged. A child that has served long enough counts as healthy
 * again, so the next failure waits the shortest delay.
 */
import type { ChildProcess } from "node:child_process";

export interface SupervisorOptions {
  /** What is supervised, for the log lines ("the embedded database"). */
  name: string;
  /** Starts the process; resolves once it serves, rejects when it fails to start. */
  start: () => Promise<ChildProcess>;
  /** First delay before a restart; doubled after each failure in a row. */
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** A process that served this long resets the delay to the first one. */
  healthyAfterMs?: number;
  log?: (line: string) => void;
}

export class Supervisor {
  private child: ChildProcess | undefined;
  private stopping = false;
  private failures = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly initialDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly healthyAfterMs: number;
  private readonly log: (line: string) => void;
  /** Starts so far, the first included. */
  starts = 0;

  constructor(private readonly options: SupervisorOptions) {
    this.initialDelayMs = options.initialDelayMs ?? 500;
    this.maxDelayMs = options.maxDelayMs ?? 30_000;
    this.healthyAfterMs = options.healthyAfterMs ?? 60_000;
    this.log = options.log ?? ((line) => console.error(line));
  }

  /** The running process, if one runs now. */
  get current(): ChildProcess | undefined {
    return this.child;
  }

  /** The first start: rejects when it fails, as nothing could be served without it. */
  async start(): Promise<ChildProcess> {
    const child = await this.options.start();
    this.watch(child);
    return child;
  }

  /** Stops supervising and ends the process with SIGTERM, waiting for it to exit. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  }

  /** The wait before restart number `failures` (1 for the first failure in a row). */
  delayFor(failures: number): number {
    return Math.min(this.maxDelayMs, this.initialDelayMs * 2 ** Math.max(0, failures - 1));
  }

  private watch(child: ChildProcess): void {
    this.child = child;
    this.starts++;
    const startedAt = Date.now();
    child.once("exit", (code, signal) => {
      if (this.child === child) this.child = undefined;
      if (this.stopping) return;
      if (code === 0) {
        // A clean exit is a decision (stopped on purpose, or another process serves the same
        // data): only a crash or a kill is restarted.
        this.log(`${capitalise(this.options.name)} exited cleanly; not restarting it.`);
        return;
      }
      if (Date.now() - startedAt >= this.healthyAfterMs) this.failures = 0;
      this.scheduleRestart(signal ? `killed by ${signal}` : `exited with code ${code}`);
    });
  }

  private scheduleRestart(why: string): void {
    this.failures++;
    const delay = this.delayFor(this.failures);
    this.log(
      `${capitalise(this.options.name)} ${why}; restarting it in ${formatDelay(delay)} (attempt ${this.failures}).`,
    );
    this.timer = setTimeout(() => {
      if (this.stopping) return;
      this.options.start().then(
        (child) => {
          if (this.stopping) {
            child.kill("SIGTERM");
            return;
          }
          this.log(`${capitalise(this.options.name)} is serving again (process ${child.pid}).`);
          this.watch(child);
        },
        (error: unknown) =>
          this.scheduleRestart(`failed to start (${error instanceof Error ? error.message : String(error)})`),
      );
    }, delay);
  }
}

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

function formatDelay(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}
