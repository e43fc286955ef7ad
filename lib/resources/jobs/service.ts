/**
 * Jobs (docs/api.md#jobs): starting an import of users from an uploaded file, and reading a job.
 * The file goes into the database as it arrives (never whole in memory), then the job is queued
 * for the runner (lib/resources/jobs/runner.ts) of any server process.
 */
import { notFound, ServiceError } from "@/lib/kernel/errors";
import { newId, oid } from "@/lib/kernel/ids";
import type { Principal } from "@/lib/kernel/principal";
import { requestContext } from "@/lib/kernel/request-context";
import type { JobRecord } from "./contract";
import { nudgeJobs } from "./nudge";
import {
  CHUNK_BYTES,
  deleteChunks,
  deleteJob,
  findJob,
  heldImportBytes,
  insertChunk,
  insertJob,
  type JobDoc,
  newJobDoc,
  queueUploaded,
  recordUpload,
} from "./repository";

/** The largest file an import takes (docs/api.md#import). */
export const MAX_IMPORT_BYTES = 100 * 1024 * 1024;
/**
 * The most bytes of import files one company may hold at once: arriving, queued or running, not yet
 * finished (docs/api.md#import). Two files of the largest size, so one import may wait behind another.
 */
export const MAX_HELD_IMPORT_BYTES = 2 * MAX_IMPORT_BYTES;
/** How long an upload's bytes count without a new chunk stored: past it, its process is taken for dead. */
const UPLOAD_LEASE_MS = 2 * 60_000;

export async function getJob(auth: Principal, id: string): Promise<JobRecord> {
  const job = await findJob(oid(auth.companyId), oid(id));
  if (!job) throw notFound("job");
  return toJobRecord(job);
}

export function toJobRecord(job: JobDoc): JobRecord {
  const total = Math.max(job.total, job.checkpoint);
  return {
    _id: job._id.toHexString(),
    type: job.type as JobRecord["type"],
    // An uploading job is never shown (findJob), so its status is one the record names.
    status: job.status as JobRecord["status"],
    dryRun: job.dryRun,
    progress: { done: job.checkpoint, total },
    summary: {
      created: job.summary.created,
      updated: job.summary.updated,
      unchanged: job.summary.unchanged,
      failed: job.summary.failed,
    },
    errors: job.rowErrors.map((error) => ({ line: error.line, path: error.path ?? "", message: error.message })),
    message: job.message ?? null,
    createdAt: job.createdAt.toISOString(),
    finishedAt: job.finishedAt ? job.finishedAt.toISOString() : null,
  };
}

const tooLarge = () =>
  new ServiceError("payload_too_large", `The file must be at most ${MAX_IMPORT_BYTES} bytes (100 MiB).`);

const MiB = (bytes: number) => `${Math.ceil(bytes / (1024 * 1024))} MiB`;

/** A file to import as it arrives, with what its request said of it (./upload.ts reads them from HTTP). */
export interface ImportUpload {
  /** The file's media type, one an import reads (./upload.ts's `importMediaType`). */
  mediaType: string;
  /** The size the client declared (`Content-Length`); 0 when it declared none. */
  declaredBytes: number;
  /** The file's bytes as they arrive; `null` for no body. */
  body: AsyncIterable<Uint8Array> | null;
  dryRun: boolean;
}

/**
 * Stores the uploaded file in chunks and queues an import of it: the job, queued. A file over
 * {@link MAX_IMPORT_BYTES} (by `Content-Length` or by the bytes received) is `413`, and one that
 * would take the company's unfinished imports past {@link MAX_HELD_IMPORT_BYTES} is `409`; either
 * way nothing is kept.
 *
 * While the file arrives its job is `uploading`, holding the bytes declared or received so far:
 * each stored chunk records them and then sums the company's, so of two uploads racing past the cap
 * the later to sum sees both, and the cap is passed by at most a chunk per upload (docs/api.md#import).
 */
export async function startUserImport(
  auth: Principal,
  { mediaType, declaredBytes: declared, body, dryRun }: ImportUpload,
): Promise<JobRecord> {
  if (declared > MAX_IMPORT_BYTES) throw tooLarge();
  const company = oid(auth.companyId);
  const id = newId();
  const now = new Date();
  const context = requestContext();
  const doc = newJobDoc(
    {
      company,
      type: "users.import",
      dryRun,
      file: { mediaType, bytes: declared, chunks: 0 },
      actor: {
        userId: auth.userId,
        // The name its changes are audited under (docs/api.md#audit-log).
        name: auth.name ?? null,
        apiKeyId: auth.apiKey?.id ?? null,
        scopes: [...(auth.apiKey?.scopes ?? [])],
        requestId: context?.requestId ?? null,
        ip: context?.ip ?? null,
        userAgent: context?.userAgent ?? null,
      },
    },
    now,
    id,
  );
  const leaseUntil = () => new Date(Date.now() + UPLOAD_LEASE_MS);
  /** Refuses the upload once the company's unfinished imports, this one's `held` bytes included, pass the cap. */
  const checkHeld = async (held: number) => {
    const total = await heldImportBytes(company, new Date());
    if (total <= MAX_HELD_IMPORT_BYTES) return;
    throw new ServiceError(
      "conflict",
      `The company's imports not yet finished already hold ${MiB(total - held)} of files; with this one (${MiB(held)} so far) they would pass ${MiB(MAX_HELD_IMPORT_BYTES)}, the most a company may have at once. Wait for them to finish (GET /v2/jobs/{id}), then send this file again.`,
    );
  };
  let bytes = 0;
  let chunks = 0;
  try {
    await insertJob({ ...doc, status: "uploading", leaseUntil: leaseUntil() });
    await checkHeld(declared);
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const flush = async () => {
      if (pendingBytes === 0) return;
      await insertChunk(id, chunks++, Buffer.concat(pending, pendingBytes), now);
      pending = [];
      pendingBytes = 0;
      const held = Math.max(declared, bytes);
      await recordUpload(id, { mediaType, bytes: held, chunks }, leaseUntil());
      await checkHeld(held);
    };
    if (body) {
      for await (const part of body) {
        bytes += part.byteLength;
        if (bytes > MAX_IMPORT_BYTES) throw tooLarge();
        pending.push(Buffer.from(part.buffer, part.byteOffset, part.byteLength));
        pendingBytes += part.byteLength;
        if (pendingBytes >= CHUNK_BYTES) await flush();
      }
    }
    await flush();
    if (bytes === 0)
      throw new ServiceError("invalid_request", "The request is not valid.", [
        { path: "body", message: "is empty: send the file as the body" },
      ]);
    await queueUploaded(id, { mediaType, bytes, chunks });
  } catch (error) {
    await Promise.all([deleteChunks(id), deleteJob(id)]);
    throw error;
  }
  nudgeJobs();
  return toJobRecord({ ...doc, file: { mediaType, bytes, chunks } });
}

/** The principal a job acts as: the one that started it. */
export function jobPrincipal(job: JobDoc): Principal {
  return {
    userId: job.actor.userId,
    companyId: job.company.toHexString(),
    sessionId: "",
    accessRoles: [],
    ...(job.actor.name ? { name: job.actor.name } : {}),
    ...(job.actor.apiKeyId
      ? { apiKey: { id: job.actor.apiKeyId, scopes: job.actor.scopes as NonNullable<Principal["apiKey"]>["scopes"] } }
      : {}),
  };
}
