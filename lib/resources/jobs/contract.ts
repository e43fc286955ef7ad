/**
 * Jobs (docs/api.md#jobs): work that outlives the request that started it, such as an import of
 * users, followed by polling `GET /v2/jobs/{id}`. A job belongs to the company that started it.
 */
import { isoDateTime, objectId, queryBoolean } from "@/lib/base/schemas/common";
import { type ComponentNames, operation } from "@/lib/base/schemas/operation";
import { z } from "zod";

export const JOB_TYPES = ["users.import"] as const;
export const JOB_STATUSES = ["queued", "running", "succeeded", "failed"] as const;

/** At most this many row errors are kept on a job; `summary.failed` counts them all. */
export const MAX_JOB_ERRORS = 1000;

export const JobError = z.object({
  /** The line of the file the row starts on (1 is a CSV's header); 0 for the file as a whole. */
  line: z.number().int(),
  /** The column (CSV) or field (NDJSON) at fault, dotted; empty for the row as a whole. */
  path: z.string(),
  message: z.string(),
});
export type JobError = z.infer<typeof JobError>;

export const JobSummary = z.object({
  created: z.number().int(),
  updated: z.number().int(),
  unchanged: z.number().int(),
  failed: z.number().int(),
});
export type JobSummary = z.infer<typeof JobSummary>;

export const JobRecord = z.object({
  _id: objectId,
  type: z.enum(JOB_TYPES),
  status: z.enum(JOB_STATUSES),
  /** A dry run checks and counts every row as the real run would, and changes nothing. */
  dryRun: z.boolean(),
  /** Rows done of the file's rows (`total` is 0 until the file has been counted). */
  progress: z.object({ done: z.number().int(), total: z.number().int() }),
  summary: JobSummary,
  /** The first {@link MAX_JOB_ERRORS} row errors, in file order. */
  errors: z.array(JobError),
  /** Why a failed job stopped, and what it had done; `null` otherwise. */
  message: z.string().nullable(),
  createdAt: isoDateTime,
  finishedAt: isoDateTime.nullable(),
});
export type JobRecord = z.infer<typeof JobRecord>;

export const JobIdParams = z.object({ id: objectId });

export const ImportUsersQuery = z.object({
  dryRun: queryBoolean.default(false),
});
export type ImportUsersQuery = z.infer<typeof ImportUsersQuery>;

export const importUsers = operation({
  method: "post",
  path: "/v2/users/import",
  scope: "users:write",
  admin: true,
  query: ImportUsersQuery,
  doc: {
    tag: "Users",
    summary: "Import users from a file",
    description:
      "Starts a job that upserts the file's users by e-mail: a new e-mail creates a user (no invitation is sent), an e-mail of the company's user updates the fields that differ, and equal rows are left alone, so importing the same file again changes nothing. " +
      "The file is CSV with a header row (`text/csv`, the export's columns: `email`, `firstName`, `lastName`, `secondLastName`, `displayName`, `isActive`, `accessRoles` as names separated by `;`, `jobTitle` as a name, `phone`; other columns such as `_id` or `createdAt` are ignored) or NDJSON (`application/x-ndjson`, one user record a line, `accessRoles` and `job` by name), at most 100 MiB. " +
      "Each row is checked as `POST /v2/users` or `PATCH /v2/users/{id}` would check it; a bad row is reported in the job's `errors` with its line and never stops the others. For an API key without the scope `admin`, a row that grants or takes an access role with `isAdmin: true`, or changes the name, job or phone of a user holding one, is such a row (its error names the scope). Each change is audited and raises its event, as the same change through the API would. " +
      "With `dryRun=true` every row is checked and counted and nothing changes. Answers `202` with the job; poll `Location` (`GET /v2/jobs/{id}`). " +
      "A row larger than 64 KiB (a CSV record, an NDJSON line) is a row error (`cannot be read: the record is larger than 65536 bytes…`), never read whole. " +
      "A company's imports not yet finished (arriving, queued or running, dry runs too) may hold at most 200 MiB of files together: an upload that would pass that is `409 conflict`, and nothing of it is kept; send it again once they finish.",
    status: 202,
    response: JobRecord,
    errors: ["conflict"],
    upload: {
      mediaTypes: ["text/csv", "application/x-ndjson"],
      description: "The file: CSV with a header row, or NDJSON. At most 100 MiB.",
    },
    parameters: { dryRun: { description: "`true` checks and counts every row and changes nothing." } },
  },
});

export const read = operation({
  method: "get",
  path: "/v2/jobs/{id}",
  scope: "users:write",
  admin: true,
  params: JobIdParams,
  doc: {
    tag: "Jobs",
    summary: "Read a job",
    description:
      "A job of the caller's company (another company's is `404`): its status (`queued`, `running`, then `succeeded` or `failed`), its progress in rows, the summary so far and the first 1,000 row errors. Poll it until `finishedAt` is set. A job survives a restart of the server: another server process resumes it from its last committed row, or ends it `failed` with a `message` saying what was done.",
    status: 200,
    response: JobRecord,
  },
});

/** The names of this resource's schemas in the OpenAPI document. */
export const components: ComponentNames = { records: { Job: JobRecord, JobError }, answers: { JobAnswer: JobRecord } };
