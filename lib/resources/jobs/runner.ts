/**
 * The job runner, beside the requests (docs/architecture.md#jobs): takes a queued job (or a running
 * one whose worker died: its lease expired) under a lease, and runs it in batches, each committing
 * its changes, their events and the job's checkpoint together. A job taken over resumes after its
 * checkpoint; one that has already been taken {@link MAX_JOB_ATTEMPTS} times ends `failed`, saying
 * what was done. All state is in the database, so any server process may finish any job.
 */
import { BackgroundLoop, type LoopOptions } from "@/lib/kernel/background-loop";
import { log } from "@/lib/kernel/log";
import { withRequestContext } from "@/lib/kernel/request-context";
import { importBatch, importScope, LostJob, noteEmails, prepareBatch } from "@/lib/resources/users/import";
import { CSV_TYPE, ImportFileError, type ImportRow, importRows } from "@/lib/resources/users/import-file";
import { Readable } from "node:stream";
import { jobNudges } from "./nudge";
import { advanceJob, claimJob, deleteChunks, findJobById, type JobDoc, readChunks, updateHeldJob } from "./repository";
import { jobPrincipal } from "./service";

/** Times a job may be taken; past that it is given up (a file that kills its worker must not kill them all). */
export const MAX_JOB_ATTEMPTS = 3;

export interface JobRunnerOptions extends LoopOptions {
  /** How long a job is held without a committed batch before another worker may take it. */
  leaseMs?: number;
  /** Rows per transaction. */
  batchSize?: number;
  /** Called after each committed batch (the crash test waits on it). */
  onBatch?: (job: JobDoc, checkpoint: number) => void;
}

export class JobRunner extends BackgroundLoop {
  private readonly leaseMs: number;
  private readonly batchSize: number;
  private readonly onBatch: (job: JobDoc, checkpoint: number) => void;

  constructor(options: JobRunnerOptions = {}) {
    super("job", jobNudges, options);
    this.leaseMs = options.leaseMs ?? 30_000;
    this.batchSize = options.batchSize ?? 500;
    this.onBatch = options.onBatch ?? (() => undefined);
  }

  /** Takes and runs jobs until none is left to take. */
  async runOnce(): Promise<void> {
    while (this.running || this.loop === undefined) {
      const now = new Date();
      const job = await claimJob(this.owner, now, this.leaseUntil());
      if (!job) return;
      await this.run(job);
    }
  }

  private leaseUntil(): Date {
    return new Date(Date.now() + this.leaseMs);
  }

  private async run(job: JobDoc): Promise<void> {
    if (job.attempts > MAX_JOB_ATTEMPTS) {
      await this.finish(
        job,
        "failed",
        `The import stopped after ${MAX_JOB_ATTEMPTS} attempts, each ended by its server process stopping; ${doneSoFar(job)}`,
      );
      return;
    }
    const context = {
      requestId: job.actor.requestId ?? `job-${job._id.toHexString()}`,
      principal: jobPrincipal(job),
      ip: job.actor.ip ?? undefined,
      userAgent: job.actor.userAgent ?? undefined,
    };
    try {
      await withRequestContext(context, () => this.runImport(job));
    } catch (error) {
      if (error instanceof LostJob) {
        log().warn({ job: job._id.toHexString(), owner: this.owner }, "job outlived its lease");
        return;
      }
      if (error instanceof ImportFileError) {
        await this.finish(job, "failed", error.message);
        return;
      }
      // Left running: once the lease expires a worker takes it again, from its checkpoint.
      throw error;
    }
  }

  private async runImport(job: JobDoc): Promise<void> {
    const csv = job.file.mediaType === CSV_TYPE;
    const rows = () => importRows(job.file.mediaType, readChunks(job._id, job.file.chunks));
    if (job.total === 0) {
      let total = 0;
      for await (const row of rows()) total = row.index;
      if (
        !(await updateHeldJob(job._id, this.owner, {
          total,
          leaseUntil: this.leaseUntil(),
          startedAt: job.startedAt ?? new Date(),
        }))
      )
        throw new LostJob();
      job.total = total;
    }
    const scope = await importScope(job.company, jobPrincipal(job), csv);
    let checkpoint = job.checkpoint;
    let batch: ImportRow[] = [];
    // One batch commits while the next is read and checked (docs/architecture.md#jobs): never more than one waits.
    let committing: Promise<void> = Promise.resolve();
    const flush = async () => {
      if (batch.length === 0) return;
      const at = checkpoint;
      const size = batch.length;
      checkpoint += size;
      const prepared = prepareBatch(scope, batch, job.dryRun);
      batch = [];
      const before = committing;
      committing = (async () => {
        const ready = await prepared;
        await before;
        await importBatch(scope, ready, job.dryRun, (outcome) =>
          advanceJob(job._id, this.owner, at, { rows: size, ...outcome }, this.leaseUntil()),
        );
        this.onBatch(job, at + size);
      })();
      // Its failure is met where it is awaited next (the next flush, or the end), not left unhandled when the loop stops first.
      committing.catch(() => undefined);
      // The batch before this one must be done before another is read: its failure stops the job here.
      await before;
    };
    // The next rows are read and parsed while a batch waits on the database (docs/architecture.md#jobs).
    for await (const row of Readable.from(rows(), {
      objectMode: true,
      highWaterMark: this.batchSize * 2,
    }) as AsyncIterable<ImportRow>) {
      if (row.index <= job.checkpoint) {
        // Done before a restart: only its e-mail counts, for the rows that follow.
        noteEmails(scope, [row]);
        continue;
      }
      if (!this.running && this.loop !== undefined) {
        // The process drains (lib/base/shared/shutdown.ts): what was read commits, and the lease is
        // given back now, so another process goes on from the checkpoint without waiting for it
        // to expire, and this stop does not count as a failed attempt.
        await flush();
        await committing;
        await updateHeldJob(job._id, this.owner, { leaseUntil: new Date(), attempts: Math.max(0, job.attempts - 1) });
        return;
      }
      batch.push(row);
      if (batch.length >= this.batchSize) await flush();
    }
    await flush();
    await committing;
    const done = await findJobById(job._id);
    await this.finish(done ?? job, "succeeded", null);
  }

  private async finish(job: JobDoc, status: "succeeded" | "failed", message: string | null): Promise<void> {
    const ended = await updateHeldJob(job._id, this.owner, {
      status,
      message,
      finishedAt: new Date(),
      leaseUntil: null,
      ...(status === "succeeded" ? { total: job.checkpoint } : {}),
    });
    if (ended) await deleteChunks(job._id);
  }
}

function doneSoFar(job: JobDoc): string {
  const { created, updated, unchanged, failed } = job.summary;
  return `${job.checkpoint} of ${job.total || "the"} rows were done before it stopped (${created} created, ${updated} updated, ${unchanged} unchanged, ${failed} failed); the rest were not imported.`;
}

let started: JobRunner | undefined;

/** Starts this process's job runner once (instrumentation.ts, at server start). */
export function startJobRunner(options?: JobRunnerOptions): JobRunner {
  started ??= new JobRunner(options).start();
  return started;
}
