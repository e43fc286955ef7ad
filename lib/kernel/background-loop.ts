/**
 * The loops a server process runs beside its requests, webhook delivery and the job runner
 * (docs/architecture.md#webhook-delivery, #jobs): a round every `pollMs`, or at once when a request
 * nudges it; a failed round is logged and the next one comes.
 */
import { randomUUID } from "node:crypto";
import { log } from "./log";

/**
 * A channel on which requests wake the loops of this process. Its listeners live on `globalThis`:
 * Next.js may load a route and the instrumentation hook that starts a loop as separate copies of
 * one module.
 */
export function nudgeChannel(name: string): { listen(listener: () => void): () => void; nudge(): void } {
  const key = Symbol.for(`usersurveys.${name}.nudge`);
  const store = globalThis as unknown as Record<symbol, Set<() => void> | undefined>;
  const listeners = (store[key] ??= new Set());
  return {
    listen(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    nudge() {
      for (const listener of listeners) listener();
    },
  };
}

export interface LoopOptions {
  /** Names this worker in the leases it takes; unique per process by default. */
  owner?: string;
  pollMs?: number;
  /** Awaited before each round: the server passes `ready()`, which connects. */
  before?: () => Promise<void>;
}

export abstract class BackgroundLoop {
  readonly owner: string;
  /** True from {@link start} to {@link stop}; a round in progress checks it between its pieces. */
  protected running = false;
  /** Set once started: a round called directly (`runOnce` in a test) runs to its end. */
  protected loop: Promise<void> | undefined;
  private readonly pollMs: number;
  private readonly before: () => Promise<void>;
  private wake: (() => void) | undefined;
  private nudged = false;
  private unsubscribe: (() => void) | undefined;

  protected constructor(
    private readonly kind: string,
    private readonly channel: { listen(listener: () => void): () => void },
    options: LoopOptions,
  ) {
    this.owner = options.owner ?? `${process.pid}-${randomUUID()}`;
    this.pollMs = options.pollMs ?? 1_000;
    this.before = options.before ?? (async () => undefined);
  }

  /** One round of the loop's work. */
  abstract runOnce(): Promise<void>;

  /** Runs the loop until {@link stop}: every `pollMs`, or at once when nudged. */
  start(): this {
    if (this.running) return this;
    this.running = true;
    this.unsubscribe = this.channel.listen(() => this.nudge());
    this.loop = (async () => {
      while (this.running) {
        try {
          await this.before();
          await this.runOnce();
        } catch (error) {
          log().warn({ err: error, owner: this.owner }, `${this.kind} round failed`);
        }
        await this.sleep();
      }
    })();
    return this;
  }

  /** Ends the loop after the round in progress. */
  async stop(): Promise<void> {
    this.running = false;
    this.unsubscribe?.();
    this.nudge();
    await this.loop;
  }

  nudge(): void {
    this.nudged = true;
    this.wake?.();
  }

  private sleep(): Promise<void> {
    if (this.nudged || !this.running) {
      this.nudged = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, this.pollMs);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = () => {
        this.wake = undefined;
        this.nudged = false;
        done();
      };
    });
  }
}
