"use client";

import { useToast } from "@/components/ui/toast";
import type { Operation } from "@/lib/base/schemas/operation";
import { ApiError, openStream, type QueryValue } from "@/lib/client/api";
import { useEffect, useRef, useState } from "react";
import { Button, Popover, buttonClass, focusRing } from "./ui";

type Format = "csv" | "ndjson";

const FORMATS: { format: Format; label: string; hint: string }[] = [
  { format: "csv", label: "CSV", hint: "for spreadsheets" },
  { format: "ndjson", label: "NDJSON", hint: "one JSON record a line" },
];

const MIME: Record<Format, string> = { csv: "text/csv", ndjson: "application/x-ndjson" };

/** A list's paging parameters: an export takes every match (docs/api.md#export). */
const PAGING = new Set(["page", "limit", "count", "cursor"]);

interface Progress {
  rows: number;
  total: number | undefined;
}

/**
 * Exports every record of a list's current view (its filters, not its page) as CSV or NDJSON: the
 * file streams in with the rows counted as they arrive against the total the server announced
 * (`X-Total-Count`), then is saved; Cancel stops it.
 */
export function ExportButton({
  operation,
  query,
  noun,
}: {
  operation: Operation;
  query: Record<string, QueryValue>;
  noun: readonly [one: string, many: string];
}) {
  const toast = useToast();
  const [open, setOpen] = useState(false);
  const [progress, setProgress] = useState<Progress | undefined>();
  const controller = useRef<AbortController | undefined>(undefined);

  // Leaving the page ends a running export.
  useEffect(() => () => controller.current?.abort(), []);

  async function run(format: Format) {
    setOpen(false);
    const abort = new AbortController();
    controller.current = abort;
    setProgress({ rows: 0, total: undefined });
    try {
      const filters = Object.fromEntries(Object.entries(query).filter(([key]) => !PAGING.has(key)));
      const response = await openStream(operation, {
        query: { ...filters, format },
        accept: MIME[format],
        signal: abort.signal,
      });
      const total = Number(response.headers.get("x-total-count") ?? Number.NaN);
      const counter = rowCounter(format);
      const chunks: Uint8Array<ArrayBuffer>[] = [];
      const reader = response.body!.getReader();
      let shown = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value as Uint8Array<ArrayBuffer>);
        const rows = counter(value);
        // A render per few hundred rows is plenty for the eye and cheap for a million.
        if (rows - shown >= 250 || rows === total) {
          shown = rows;
          setProgress({ rows, total: Number.isFinite(total) ? total : undefined });
        }
      }
      const rows = counter(new Uint8Array());
      const filename = fileName(response.headers.get("content-disposition")) ?? `${noun[1]}.${format}`;
      save(new Blob(chunks, { type: MIME[format] }), filename);
      toast.show({
        tone: "success",
        message: `Exported ${rows.toLocaleString("en")} ${rows === 1 ? noun[0] : noun[1]} to ${filename}.`,
      });
    } catch (error) {
      if (abort.signal.aborted) toast.show({ tone: "info", message: "Export cancelled." });
      else
        toast.show({
          tone: "error",
          message: `The export failed: ${error instanceof ApiError ? error.message : "the connection was lost. Try again."}`,
        });
    } finally {
      controller.current = undefined;
      setProgress(undefined);
    }
  }

  if (progress) {
    const { rows, total } = progress;
    const percent = total ? Math.min(100, Math.round((100 * rows) / total)) : undefined;
    return (
      <div className="flex min-w-0 items-center gap-2" data-testid="export-progress">
        <div
          role="progressbar"
          aria-label={`Exporting ${noun[1]}`}
          aria-valuemin={0}
          aria-valuemax={total ?? undefined}
          aria-valuenow={total ? rows : undefined}
          aria-valuetext={
            total !== undefined
              ? `${rows.toLocaleString("en")} of ${total.toLocaleString("en")} rows`
              : `${rows.toLocaleString("en")} rows`
          }
          className="h-2 w-20 shrink-0 overflow-hidden rounded-full bg-slate-200 sm:w-32"
        >
          <div
            className={`h-full bg-sky-600 transition-[width] ${percent === undefined ? "w-1/3 animate-pulse" : ""}`}
            style={percent === undefined ? undefined : { width: `${percent}%` }}
          />
        </div>
        <span className="text-xs whitespace-nowrap text-slate-700 tabular-nums">
          {total === undefined && rows === 0 ? (
            "Starting…"
          ) : (
            <>
              {rows.toLocaleString("en")}
              {total !== undefined && <span className="hidden sm:inline"> of {total.toLocaleString("en")}</span>} rows
            </>
          )}
        </span>
        <Button className="px-2 py-1 text-xs" onClick={() => controller.current?.abort()}>
          Cancel
        </Button>
      </div>
    );
  }

  return (
    <Popover
      label={
        <>
          Export
          <span aria-hidden="true">▾</span>
        </>
      }
      open={open}
      onOpenChange={setOpen}
      buttonClassName={buttonClass("secondary", "px-2.5 py-1")}
      panelClassName="left-0 w-60"
    >
      <p className="px-2 py-1 text-xs text-slate-600">Every {noun[0]} of this view, all pages</p>
      {FORMATS.map(({ format, label, hint }) => (
        <button
          key={format}
          type="button"
          autoFocus={format === "csv"}
          onClick={() => run(format)}
          className={`flex w-full items-baseline justify-between gap-2 rounded px-2 py-1.5 text-left text-sm text-slate-800 hover:bg-slate-100 ${focusRing}`}
        >
          <span className="font-medium">{label}</span>
          <span className="text-xs text-slate-600">{hint}</span>
        </button>
      ))}
    </Popover>
  );
}

/**
 * Counts the records of a streamed file chunk by chunk (an empty chunk reads the count): NDJSON's
 * lines, or CSV's line ends outside quoted fields minus the header row.
 */
function rowCounter(format: Format): (chunk: Uint8Array) => number {
  let lines = 0;
  let quoted = false;
  const NEWLINE = 10;
  const QUOTE = 34;
  return (chunk) => {
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i];
      if (byte === QUOTE && format === "csv") quoted = !quoted;
      else if (byte === NEWLINE && !quoted) lines++;
    }
    return format === "csv" ? Math.max(0, lines - 1) : lines;
  };
}

/** The file name of `Content-Disposition: attachment; filename="…"`. */
function fileName(disposition: string | null): string | undefined {
  return disposition ? /filename="([^"]+)"/.exec(disposition)?.[1] : undefined;
}

function save(blob: Blob, filename: string) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
