/**
 * The streamed exports of the lists (docs/api.md#export) and of a survey's answers: every record a list's filters match,
 * read batch by batch as the client takes the body, so neither the whole set nor the whole file is
 * ever in the server's memory.
 *
 * The records are read by keyset, a batch of {@link EXPORT_BATCH} at a time, in the list's own
 * order and on the list's own index, each batch starting after the last record of the one before
 * (as cursor paging does, lib/kernel/cursor.ts), instead of through one database cursor: the
 * embedded database computes a cursor's whole result when it opens (lib/embedded-mongo/wire/cursors.ts),
 * which for a million users would hold them all in the database's memory, while a batch by keyset
 * costs what the first does however deep it is, on the embedded database and on MongoDB alike.
 *
 * The body is a pull-based `ReadableStream`: a batch is read only when the client has taken the
 * one before (backpressure), and a client that goes away cancels the stream, which ends the walk.
 *
 * A service answers an {@link ExportSource} (the records as an async iterable of batches, and how
 * a batch becomes rows): no HTTP. The route turns it into the `Response` here, in one place.
 */
import type { ExportFormat } from "@/lib/base/schemas/export";
import { protectCell } from "@/lib/base/shared/csv-cells";
import type { ListOrder } from "@/lib/kernel/cursor";
import { log } from "@/lib/kernel/log";
import { stringify } from "csv-stringify/sync";
import type { Document } from "mongodb";

/**
 * Records read from the database per batch: about what the server holds of an export at a time.
 * Small enough that a batch is mostly garbage before the young generation is next collected, so
 * little of it reaches the old generation, whose collections come far apart (docs/benchmarks.md#export).
 */
const EXPORT_BATCH = 500;

/**
 * The batches of a keyset walk: `read` answers at most `limit` records of the list in `order`
 * that also meet `condition` (none on the first call); `position` gives a record's values of the
 * order's fields (dates as `Date`, ids as `ObjectId`).
 *
 * "After the last record" is a comparison of tuples, which as one `$or` the embedded database
 * evaluates about ten times slower per record than a plain range (docs/benchmarks.md#export). So
 * it is read as the plain ranges it is made of, in order: the records equal to the last one on
 * every field but the last and past it on that one, then those equal on one field fewer and past
 * it on the next, and so on; each is one equality-and-range on the list's index.
 */
export async function* keysetBatches<T>(
  read: (condition: Document | undefined, limit: number) => Promise<T[]>,
  order: ListOrder,
  position: (record: T) => unknown[],
  batchSize = EXPORT_BATCH,
): AsyncGenerator<T[]> {
  const past = order.direction === 1 ? "$gt" : "$lt";
  let batch = await read(undefined, batchSize);
  while (batch.length > 0) {
    yield batch;
    if (batch.length < batchSize) return;
    const last = position(batch[batch.length - 1]);
    batch = [];
    for (let equal = order.fields.length - 1; equal >= 0 && batch.length < batchSize; equal--) {
      const condition = Object.fromEntries(
        order.fields.slice(0, equal).map((field, index) => [field.name, last[index]]),
      );
      condition[order.fields[equal].name] = { [past]: last[equal] };
      batch.push(...(await read(condition, batchSize - batch.length)));
    }
  }
}

/** What a service's export answers: the records, in batches as they are read, and how they are shown. */
export interface ExportSource<T> {
  /** The file's name before its date and extension: `users` → `users-2026-11-26.csv`. */
  name: string;
  /** The whole file name instead, when it is not `name`, the day and the format's extension. */
  fileName?: string;
  /** How many records matched when the export began (`X-Total-Count`; no such header without it). */
  total?: number;
  batches: AsyncGenerator<T[]>;
  /** The CSV header row. */
  columns: readonly string[];
  /** The CSV rows of a batch, one cell per column (names of references resolved per batch). */
  rows: (batch: T[]) => Promise<string[][]> | string[][];
  /** The NDJSON lines of a batch: each record as a read by id answers it. */
  records: (batch: T[]) => unknown[];
  /** How a CSV cell is made safe for a spreadsheet (docs/security.md#csv-exports): {@link protectCell} unless said. */
  protect?: (cell: string) => string;
}

export interface ExportOptions<T> extends ExportSource<T> {
  format: ExportFormat;
  requestId: string;
  /** The request's signal: a client gone away ends the walk even before the body is read. */
  signal?: AbortSignal;
}

const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: "text/csv; charset=utf-8",
  ndjson: "application/x-ndjson; charset=utf-8",
};

/** The `200` answer of an export: headers now, the body as the client reads it. */
export function exportResponse<T>(options: ExportOptions<T>): Response {
  const { format, batches, requestId } = options;
  const encoder = new TextEncoder();
  const started = performance.now();
  let sent = 0;
  let headerSent = false;
  let ended = false;
  // Set once the client cancelled the body: a batch read meanwhile has nowhere to go.
  let cancelled = false;
  const end = async (outcome: string) => {
    if (ended) return;
    ended = true;
    options.signal?.removeEventListener("abort", aborted);
    await batches.return(undefined);
    log().info(
      { requestId, export: options.name, format, rows: sent, ms: Math.round(performance.now() - started), outcome },
      "export",
    );
  };
  const aborted = () => void end("cancelled");
  options.signal?.addEventListener("abort", aborted, { once: true });

  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const next = ended ? { done: true as const, value: undefined } : await batches.next();
          const records = next.done ? [] : next.value;
          let text = "";
          if (format === "csv") {
            const protect = options.protect ?? protectCell;
            const rows = (await options.rows(records)).map((row) => row.map(protect));
            if (!headerSent) rows.unshift([...options.columns]);
            headerSent = true;
            if (rows.length > 0) text = stringify(rows, { record_delimiter: "windows" });
          } else {
            text = options
              .records(records)
              .map((record) => `${JSON.stringify(record)}\n`)
              .join("");
          }
          if (cancelled) return;
          sent += records.length;
          if (text) controller.enqueue(encoder.encode(text));
          if (next.done) {
            await end(ended ? "cancelled" : "done");
            controller.close();
          }
        } catch (error) {
          if (cancelled) return;
          log().error({ requestId, export: options.name, rows: sent, err: error }, "export failed");
          await end("failed").catch(() => undefined);
          controller.error(error);
        }
      },
      async cancel() {
        cancelled = true;
        await end("cancelled");
      },
    },
    // One batch waits in the queue at most: the next is read only once the client took it.
    { highWaterMark: 1 },
  );

  const extension = format === "csv" ? "csv" : "ndjson";
  const fileName = options.fileName ?? `${options.name}-${new Date().toISOString().slice(0, 10)}.${extension}`;
  return new Response(body, {
    status: 200,
    headers: {
      "Content-Type": CONTENT_TYPES[format],
      "Content-Disposition": `attachment; filename="${fileName}"`,
      "Cache-Control": "no-store",
      ...(options.total === undefined ? {} : { "X-Total-Count": String(options.total) }),
      "X-Request-Id": requestId,
    },
  });
}
