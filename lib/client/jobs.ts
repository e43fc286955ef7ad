/** Typed react-query hooks of the import of users and its job (lib/resources/jobs/contract.ts). */
import type { JobError, JobRecord } from "@/lib/resources/jobs/contract";
import * as jobs from "@/lib/resources/jobs/contract";
import { useMutation, useQuery } from "@tanstack/react-query";
import { request } from "./api";

/** The cache keys of jobs: one per job. */
const jobKeys = {
  detail: (id: string | undefined) => ["jobs", id] as const,
};

/** How often a job is read again until it has finished. */
const JOB_POLL_MS = 500;

export const isFinished = (job: JobRecord | undefined) => job?.status === "succeeded" || job?.status === "failed";

/** The media type of an import file, by its name: NDJSON for `.ndjson` and `.jsonl`, CSV otherwise. */
const importMediaType = (file: File) =>
  /\.(ndjson|jsonl)$/i.test(file.name) || file.type === "application/x-ndjson" ? "application/x-ndjson" : "text/csv";

/** Starts an import (or its dry run) of `file`: the job, queued. */
export function useStartImport() {
  return useMutation({
    mutationFn: ({ file, dryRun }: { file: File; dryRun: boolean }) =>
      request(jobs.importUsers, { query: { dryRun }, file: { body: file, type: importMediaType(file) } }),
  });
}

/** A job, read again every half second until it has finished. */
export function useJob(id: string | undefined) {
  return useQuery({
    queryKey: jobKeys.detail(id),
    queryFn: ({ signal }) => request(jobs.read, { params: { id: id! }, signal }),
    enabled: id !== undefined,
    refetchInterval: (query) => (isFinished(query.state.data) ? false : JOB_POLL_MS),
  });
}

const csvCell = (value: string | number) => {
  const text = String(value);
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

/** The error report of a job as CSV: line, path, message. */
export function errorReport(errors: JobError[]): string {
  return (
    [
      "line,path,message",
      ...errors.map((error) => [error.line, error.path, error.message].map(csvCell).join(",")),
    ].join("\n") + "\n"
  );
}
