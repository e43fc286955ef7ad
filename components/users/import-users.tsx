"use client";

/**
 * The Import users page (docs/api.md#import): choose a file (or drop it), check it with a dry run
 * that shows what it would do and every bad row, then import it with a progress bar, and download
 * the rows that failed as a CSV report.
 */
import { DataTable, type DataColumn } from "@/components/ui/data-table";
import { ErrorMessage } from "@/components/ui/error-message";
import { useToast } from "@/components/ui/toast";
import { errorReport, isFinished, useJob, useStartImport } from "@/lib/client/jobs";
import type { JobError, JobRecord } from "@/lib/resources/jobs/contract";
import { importTemplate } from "@/lib/resources/users/columns";
import Link from "next/link";
import { useEffect, useId, useRef, useState, type DragEvent } from "react";
import { Button, Card, EmptyState, Loading, buttonClass, linkClass } from "../ui";

type Row = JobError & { n: number };

const columns: DataColumn<Row>[] = [
  { id: "line", header: "Line", cell: (row) => row.line },
  { id: "path", header: "Column", cell: (row) => row.path || <span className="text-slate-500">(whole row)</span> },
  { id: "message", header: "Problem", cell: (row) => row.message, className: "min-w-64" },
];

const plural = (count: number, one: string, many: string) =>
  `${count.toLocaleString("en-GB")} ${count === 1 ? one : many}`;

function saveCsv(name: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: "text/csv" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
const saveReport = (job: JobRecord) => saveCsv(`import-errors-${job._id}.csv`, errorReport(job.errors));

export function ImportUsers() {
  const toast = useToast();
  const inputId = useId();
  const input = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<File>();
  const [dragging, setDragging] = useState(false);
  const [checkId, setCheckId] = useState<string>();
  const [importId, setImportId] = useState<string>();
  const start = useStartImport();
  const check = useJob(checkId);
  const run = useJob(importId);
  const announced = useRef(new Set<string>());

  // One message when a job ends, whatever page state it ends in.
  useEffect(() => {
    for (const job of [check.data, run.data]) {
      if (!job || !isFinished(job) || announced.current.has(job._id)) continue;
      announced.current.add(job._id);
      const { created, updated, failed } = job.summary;
      if (job.status === "failed")
        toast.show({ tone: "error", message: job.dryRun ? "The check of the file stopped." : "The import stopped." });
      else if (job.dryRun)
        toast.show({
          tone: "info",
          message:
            failed > 0
              ? `Checked: ${plural(failed, "row has", "rows have")} problems.`
              : "Checked: every row can be imported.",
        });
      else
        toast.show({
          tone: "success",
          message: `Imported: ${created.toLocaleString("en-GB")} created, ${updated.toLocaleString("en-GB")} updated.`,
        });
    }
  }, [check.data, run.data, toast]);

  const choose = (chosen: File | undefined) => {
    if (!chosen) return;
    setFile(chosen);
    setCheckId(undefined);
    setImportId(undefined);
    start.reset();
  };
  const begin = (dryRun: boolean) => {
    if (!file) return;
    start.mutate({ file, dryRun }, { onSuccess: (job) => (dryRun ? setCheckId(job._id) : setImportId(job._id)) });
  };
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    choose(event.dataTransfer.files[0]);
  };
  const busy =
    start.isPending ||
    (checkId !== undefined && !isFinished(check.data)) ||
    (importId !== undefined && !isFinished(run.data));
  const checked = check.data && isFinished(check.data) ? check.data : undefined;

  return (
    <div className="flex flex-col gap-6">
      <Card className="p-4 sm:p-6">
        <h2 className="text-base font-semibold text-slate-900">1. Choose a file</h2>
        <p className="mt-1 text-sm text-slate-600">
          A CSV file with a header row (<code>email</code>, <code>firstName</code>, <code>lastName</code>,{" "}
          <code>secondLastName</code>, <code>isActive</code> as <code>true</code> or <code>false</code>,{" "}
          <code>accessRoles</code> as names separated by <code>;</code>, <code>jobTitle</code>), or NDJSON with one user
          a line. At most 100 MB.
        </p>
        <p className="mt-2 text-sm">
          <Button kind="secondary" onClick={() => saveCsv("users-import-template.csv", importTemplate())}>
            Download a template
          </Button>
        </p>
        <div
          onDragOver={(event) => {
            event.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={onDrop}
          className={`mt-4 flex flex-col items-center gap-3 rounded-lg border-2 border-dashed px-4 py-8 text-center ${dragging ? "border-sky-600 bg-sky-50" : "border-slate-300"}`}
          data-testid="drop-zone"
        >
          <p className="text-sm text-slate-700">
            {file ? (
              <>
                Chosen: <strong className="break-all">{file.name}</strong> ({plural(file.size, "byte", "bytes")})
              </>
            ) : (
              "Drop a file here, or"
            )}
          </p>
          <label
            htmlFor={inputId}
            className={buttonClass(
              "secondary",
              "cursor-pointer focus-within:ring-2 focus-within:ring-sky-600 focus-within:ring-offset-2",
            )}
          >
            {file ? "Choose another file" : "Choose a file"}
            <input
              ref={input}
              id={inputId}
              type="file"
              accept=".csv,.ndjson,.jsonl,text/csv,application/x-ndjson"
              className="sr-only"
              onChange={(event) => {
                choose(event.target.files?.[0]);
                event.target.value = "";
              }}
            />
          </label>
        </div>
        <div className="mt-4 flex flex-wrap gap-3">
          <Button kind="primary" disabled={!file || busy} onClick={() => begin(true)}>
            Check the file
          </Button>
          <p className="self-center text-sm text-slate-600">
            The check changes nothing: it shows what the import would do.
          </p>
        </div>
        {start.isError && (
          <div className="mt-4">
            <ErrorMessage error={start.error} title="The file could not be sent" />
          </div>
        )}
      </Card>

      {checkId && (
        <Card className="p-4 sm:p-6" aria-labelledby="check-heading">
          <h2 id="check-heading" className="text-base font-semibold text-slate-900">
            2. Check
          </h2>
          {!checked ? (
            <JobProgress job={check.data} label="Checking the file…" error={check.error} />
          ) : (
            <>
              <Summary job={checked} />
              <Problems job={checked} />
              <div className="mt-4 flex flex-wrap items-center gap-3">
                <Button
                  kind="primary"
                  disabled={busy || checked.status === "failed" || importId !== undefined}
                  onClick={() => begin(false)}
                >
                  Import
                </Button>
                <p className="text-sm text-slate-600">
                  {checked.summary.failed > 0
                    ? "Rows with problems are left out; the others are imported."
                    : "Every row will be imported."}
                </p>
              </div>
            </>
          )}
        </Card>
      )}

      {importId && (
        <Card className="p-4 sm:p-6" aria-labelledby="import-heading">
          <h2 id="import-heading" className="text-base font-semibold text-slate-900">
            3. Import
          </h2>
          {run.data && isFinished(run.data) ? (
            <>
              <JobProgress job={run.data} label="Imported" />
              <Summary job={run.data} />
              <Problems job={run.data} />
              <p className="mt-4 text-sm">
                <Link href="/users" className={linkClass}>
                  Go to the users
                </Link>
              </p>
            </>
          ) : (
            <JobProgress job={run.data} label="Importing…" error={run.error} />
          )}
        </Card>
      )}
    </div>
  );
}

function JobProgress({ job, label, error }: { job: JobRecord | undefined; label: string; error?: unknown }) {
  if (error)
    return (
      <div className="mt-3">
        <ErrorMessage error={error} title="The progress could not be read" />
      </div>
    );
  if (!job) return <Loading label={label} />;
  const { done, total } = job.progress;
  const percent = total > 0 ? Math.round((done / total) * 100) : isFinished(job) ? 100 : 0;
  return (
    <div className="mt-3">
      <div className="flex justify-between text-sm text-slate-700">
        <span id={`progress-${job._id}`}>{job.status === "queued" ? "Waiting to start…" : label}</span>
        <span aria-hidden>
          {percent}% · {plural(done, "row", "rows")}
          {total > 0 && ` of ${total.toLocaleString("en-GB")}`}
        </span>
      </div>
      <div
        role="progressbar"
        aria-labelledby={`progress-${job._id}`}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-valuetext={`${percent}%, ${done} of ${total} rows`}
        className="mt-2 h-3 overflow-hidden rounded-full bg-slate-200"
      >
        <div
          className={`h-full rounded-full ${job.status === "failed" ? "bg-rose-600" : "bg-sky-600"} transition-[width]`}
          style={{ width: `${percent}%` }}
        />
      </div>
    </div>
  );
}

function Summary({ job }: { job: JobRecord }) {
  const { created, updated, unchanged, failed } = job.summary;
  const items: [string, number, string][] = job.dryRun
    ? [
        ["Would be created", created, "text-emerald-700"],
        ["Would be updated", updated, "text-sky-700"],
        ["Already up to date", unchanged, "text-slate-700"],
        ["With problems", failed, "text-rose-700"],
      ]
    : [
        ["Created", created, "text-emerald-700"],
        ["Updated", updated, "text-sky-700"],
        ["Unchanged", unchanged, "text-slate-700"],
        ["Failed", failed, "text-rose-700"],
      ];
  return (
    <>
      {job.status === "failed" && (
        <div role="alert" className="mt-3 rounded-md border border-rose-200 bg-rose-50 p-3 text-sm text-rose-900">
          {job.message ?? "The job stopped."}
        </div>
      )}
      <dl
        className="mt-4 grid grid-cols-2 gap-3 sm:grid-cols-4"
        aria-label={job.dryRun ? "What the import would do" : "What the import did"}
      >
        {items.map(([label, count, tone]) => (
          <div key={label} className="rounded-md border border-slate-200 p-3">
            <dt className="text-xs font-medium tracking-wide text-slate-600 uppercase">{label}</dt>
            <dd className={`mt-1 text-2xl font-semibold ${tone}`}>{count.toLocaleString("en-GB")}</dd>
          </div>
        ))}
      </dl>
    </>
  );
}

function Problems({ job }: { job: JobRecord }) {
  const rows: Row[] = job.errors.map((error, n) => ({ ...error, n }));
  if (rows.length === 0) {
    return job.status === "failed" ? null : (
      <EmptyState title={job.dryRun ? "No problems found" : "No row failed"}>
        {job.dryRun ? "Every row can be imported as it is." : "Every row of the file was imported."}
      </EmptyState>
    );
  }
  return (
    <div className="mt-4">
      <div className="mb-2 flex flex-wrap items-center justify-between gap-2">
        <h3 className="text-sm font-semibold text-slate-900">
          {plural(job.summary.failed, "row has", "rows have")} problems
          {job.summary.failed > rows.length && (
            <span className="font-normal text-slate-600"> (the first {rows.length.toLocaleString("en-GB")} shown)</span>
          )}
        </h3>
        <Button onClick={() => saveReport(job)}>Download the error report</Button>
      </div>
      <div className="overflow-hidden rounded-md border border-slate-200">
        <DataTable
          name="import-errors"
          caption="Rows with problems, in file order"
          rows={rows}
          columns={columns}
          rowId={(row) => String(row.n)}
          rowHref={(row) => `#line-${row.line}`}
          rowLabel={(row) => `Line ${row.line}`}
        />
      </div>
    </div>
  );
}
