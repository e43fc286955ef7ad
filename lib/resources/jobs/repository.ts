/**
 * Jobs and their uploaded files: the only code that reads or writes their collections. A job's
 * file is kept in the database in chunks (plain documents, as on any MongoDB), so a job can be
 * resumed by whichever server process takes it after a restart (docs/architecture.md#jobs).
 *
 * A worker holds a running job under a lease (`leaseOwner` until `leaseUntil`) that it renews in
 * the transaction of each batch; `checkpoint` is the number of rows whose outcome that same
 * transaction committed, so a job taken over after a crash goes on from there, never twice.
 */
import type { ObjectId as Id } from "@/lib/kernel/ids";
import { defineModel, ObjectId, schemaOptions } from "@/lib/kernel/models/define";
import mongoose, { Schema } from "mongoose";
import { MAX_JOB_ERRORS, type JobError, type JobSummary } from "./contract";

/** Jobs are kept this long, then the database removes them. */
const JOB_RETENTION_DAYS = 30;
/** A file chunk left behind by an upload that never became a job is removed after this. */
const CHUNK_RETENTION_DAYS = 7;
/** Bytes per stored chunk of an uploaded file: well under MongoDB's 16 MiB document limit. */
export const CHUNK_BYTES = 1024 * 1024;

const errorSchema = new Schema(
  {
    line: { type: Number, required: true },
    path: { type: String, default: "" },
    message: { type: String, required: true },
  },
  { _id: false },
);
const summaryFields = {
  created: { type: Number, default: 0 },
  updated: { type: Number, default: 0 },
  unchanged: { type: Number, default: 0 },
  failed: { type: Number, default: 0 },
};

const jobSchema = new Schema(
  {
    company: { type: ObjectId, required: true },
    type: { type: String, required: true },
    /** `uploading` while its file arrives: not a job yet (no one reads it), only the bytes it holds count. */
    status: { type: String, required: true, enum: ["uploading", "queued", "running", "succeeded", "failed"] },
    dryRun: { type: Boolean, required: true },
    /** The uploaded file: its media type and size (its bytes are in `jobFiles`). */
    file: {
      type: new Schema(
        {
          mediaType: { type: String, required: true },
          bytes: { type: Number, required: true },
          chunks: { type: Number, required: true },
        },
        { _id: false },
      ),
      required: true,
    },
    /** Who started it and from which request: the changes it makes are theirs (events, audit). */
    actor: {
      type: new Schema(
        {
          userId: { type: String, required: true },
          name: { type: String, default: null },
          apiKeyId: { type: String, default: null },
          scopes: { type: [String], default: [] },
          requestId: { type: String, default: null },
          ip: { type: String, default: null },
          userAgent: { type: String, default: null },
        },
        { _id: false },
      ),
      required: true,
    },
    total: { type: Number, default: 0 },
    /** Rows whose outcome is committed. */
    checkpoint: { type: Number, default: 0 },
    summary: { type: new Schema(summaryFields, { _id: false }), default: () => ({}) },
    /** The record's `errors` (Mongoose reserves that name). */
    rowErrors: { type: [errorSchema], default: [] },
    message: { type: String, default: null },
    /** Times a worker took it: a job that keeps killing its workers is given up. */
    attempts: { type: Number, default: 0 },
    leaseOwner: { type: String, default: null },
    leaseUntil: { type: Date, default: null },
    createdAt: { type: Date, required: true },
    startedAt: { type: Date, default: null },
    finishedAt: { type: Date, default: null },
  },
  { ...schemaOptions, collection: "jobs" },
);
jobSchema.index({ status: 1, leaseUntil: 1 });
jobSchema.index({ company: 1, status: 1 });
jobSchema.index({ createdAt: 1 }, { expireAfterSeconds: JOB_RETENTION_DAYS * 24 * 3600 });
export const Job = defineModel("Job", jobSchema);

export interface JobDoc {
  _id: Id;
  company: Id;
  type: string;
  status: "uploading" | "queued" | "running" | "succeeded" | "failed";
  dryRun: boolean;
  file: { mediaType: string; bytes: number; chunks: number };
  actor: {
    userId: string;
    name?: string | null;
    apiKeyId: string | null;
    scopes: string[];
    requestId: string | null;
    ip: string | null;
    userAgent: string | null;
  };
  total: number;
  checkpoint: number;
  summary: JobSummary;
  rowErrors: JobError[];
  message: string | null;
  attempts: number;
  leaseOwner: string | null;
  leaseUntil: Date | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

const chunkSchema = new Schema(
  {
    job: { type: ObjectId, required: true },
    n: { type: Number, required: true },
    data: { type: Buffer, required: true },
    createdAt: { type: Date, required: true },
  },
  { ...schemaOptions, collection: "jobFiles" },
);
chunkSchema.index({ job: 1, n: 1 }, { unique: true });
chunkSchema.index({ createdAt: 1 }, { expireAfterSeconds: CHUNK_RETENTION_DAYS * 24 * 3600 });
export const JobFileChunk = defineModel("JobFileChunk", chunkSchema);

/** The one builder of a stored job, queued. */
export function newJobDoc(
  fields: Pick<JobDoc, "company" | "type" | "dryRun" | "file" | "actor">,
  now: Date,
  id: Id = new mongoose.Types.ObjectId(),
): JobDoc {
  return {
    _id: id,
    status: "queued",
    total: 0,
    checkpoint: 0,
    summary: { created: 0, updated: 0, unchanged: 0, failed: 0 },
    rowErrors: [],
    message: null,
    attempts: 0,
    leaseOwner: null,
    leaseUntil: null,
    createdAt: now,
    startedAt: null,
    finishedAt: null,
    ...fields,
  };
}

export async function insertJob(doc: JobDoc): Promise<void> {
  await Job.collection.insertOne(doc);
}

/** The company's job; an upload still arriving is none yet. */
export const findJob = (company: Id, id: Id) =>
  Job.findOne({ _id: id, company, status: { $ne: "uploading" } }).lean<JobDoc>();

/**
 * The bytes of the import files the company has in the database and not yet done with: its queued
 * and running jobs', and those of uploads still arriving whose process was alive at `now` (their
 * `leaseUntil`, renewed at each stored chunk, is ahead): a crashed upload stops counting once it
 * lapses (docs/api.md#import).
 */
export async function heldImportBytes(company: Id, now: Date): Promise<number> {
  const docs = await Job.find(
    { company, $or: [{ status: { $in: ["queued", "running"] } }, { status: "uploading", leaseUntil: { $gt: now } }] },
    { "file.bytes": 1 },
  ).lean<Pick<JobDoc, "file">[]>();
  return docs.reduce((sum, doc) => sum + doc.file.bytes, 0);
}

/** Sets what an upload has stored so far, and how long it counts without another chunk. */
export async function recordUpload(id: Id, file: JobDoc["file"], leaseUntil: Date): Promise<void> {
  await Job.updateOne({ _id: id, status: "uploading" }, { $set: { file, leaseUntil } });
}

/** An upload whose file has all arrived becomes a queued job. */
export async function queueUploaded(id: Id, file: JobDoc["file"]): Promise<void> {
  await Job.updateOne({ _id: id, status: "uploading" }, { $set: { status: "queued", file, leaseUntil: null } });
}

export async function deleteJob(id: Id): Promise<void> {
  await Job.deleteOne({ _id: id });
}

export const findJobById = (id: Id) => Job.findById(id).lean<JobDoc>();

export async function insertChunk(job: Id, n: number, data: Buffer, now: Date): Promise<void> {
  await JobFileChunk.collection.insertOne({ job, n, data, createdAt: now });
}

/** The file's chunks in order, one read at a time (never the whole file in memory). */
export async function* readChunks(job: Id, count: number): AsyncGenerator<Buffer> {
  for (let n = 0; n < count; n++) {
    const chunk = await JobFileChunk.collection.findOne({ job, n });
    if (!chunk) throw new Error(`chunk ${n} of the file of job ${job.toHexString()} is missing`);
    const data = chunk.data as Buffer | { buffer: Uint8Array };
    yield Buffer.isBuffer(data) ? data : Buffer.from(data.buffer);
  }
}

export async function deleteChunks(job: Id): Promise<void> {
  await JobFileChunk.collection.deleteMany({ job });
}

/**
 * Takes one job for `owner` until `leaseUntil`: a queued one, or a running one whose lease has
 * expired (its worker died). findOneAndUpdate is atomic, so two workers never hold the same one.
 */
export const claimJob = (owner: string, now: Date, leaseUntil: Date) =>
  Job.findOneAndUpdate(
    { status: { $in: ["queued", "running"] }, $or: [{ leaseUntil: null }, { leaseUntil: { $lte: now } }] },
    { $set: { status: "running", leaseOwner: owner, leaseUntil }, $inc: { attempts: 1 } },
    { sort: { createdAt: 1 }, returnDocument: "after" },
  ).lean<JobDoc>();

/** What one committed batch adds to a job. */
export interface JobProgress {
  rows: number;
  summary: JobSummary;
  errors: JobError[];
}

/**
 * Moves the job's checkpoint past a batch, adding its counts and errors (the first
 * {@link MAX_JOB_ERRORS} are kept) and renewing the lease, only while `owner` holds it at
 * `checkpoint`: whether it did. Called in the batch's transaction, so the rows' changes and the
 * checkpoint commit together.
 */
export async function advanceJob(
  id: Id,
  owner: string,
  checkpoint: number,
  progress: JobProgress,
  leaseUntil: Date,
): Promise<boolean> {
  const { summary } = progress;
  const result = await Job.updateOne(
    { _id: id, leaseOwner: owner, checkpoint, status: "running" },
    {
      $inc: {
        checkpoint: progress.rows,
        "summary.created": summary.created,
        "summary.updated": summary.updated,
        "summary.unchanged": summary.unchanged,
        "summary.failed": summary.failed,
      },
      $push: { rowErrors: { $each: progress.errors.slice(0, MAX_JOB_ERRORS).map(bounded), $slice: MAX_JOB_ERRORS } },
      $set: { leaseUntil },
    },
  );
  return result.modifiedCount > 0;
}

/** An error as kept: a message quoting a huge cell of the file must not swell the job past a document's size. */
const bounded = (error: JobError): JobError => ({
  line: error.line,
  path: clip(error.path, 200),
  message: clip(error.message, 500),
});
const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** Sets fields of a job `owner` still holds; whether it did. */
export const updateHeldJob = async (id: Id, owner: string, fields: Partial<JobDoc>): Promise<boolean> =>
  (await Job.updateOne({ _id: id, leaseOwner: owner, status: "running" }, { $set: fields })).modifiedCount > 0;

/**
 * Jobs waiting for a worker and jobs a worker holds, for the metrics' gauges
 * (docs/deployment.md#metrics): two counts on the `{ status, leaseUntil }` index.
 */
export async function countUnfinishedJobs(): Promise<{ queued: number; running: number }> {
  const [queued, running] = await Promise.all([
    Job.countDocuments({ status: "queued" }).exec(),
    Job.countDocuments({ status: "running" }).exec(),
  ]);
  return { queued, running };
}
