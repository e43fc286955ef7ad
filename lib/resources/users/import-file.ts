/**
 * Reads an import file (docs/api.md#import) row by row, streaming: CSV with a header row (the
 * export's columns) or NDJSON (one user record a line). Each row becomes the fields it sets, in
 * the words of the user record (`name`, `accessRoles` and `job` by name), or the errors that make it
 * unusable; the line it starts on is kept for the report.
 */
import { restoreCell } from "@/lib/base/shared/csv-cells";
import { IMPORT_COLUMNS as CSV_COLUMNS } from "./columns";
import { csvRecords } from "./csv-records";

export const CSV_TYPE = "text/csv";
export const NDJSON_TYPE = "application/x-ndjson";
/** The media types an import takes (`application/ndjson` is the newer name of the same format). */
export const IMPORT_MEDIA_TYPES = [CSV_TYPE, NDJSON_TYPE, "application/ndjson"] as const;
/**
 * The most bytes one row may take (a CSV record, an NDJSON line; docs/api.md#import): a larger one
 * is a row error, and its bytes are passed over without being kept, so one huge cell costs the
 * server no memory.
 */
export const MAX_RECORD_BYTES = 64 * 1024;

/** A row's problem, as the import's job reports it (its schema is the job's, lib/resources/jobs/contract.ts). */
export interface RowError {
  /** The line of the file the row starts on (1 is a CSV's header); 0 for the file as a whole. */
  line: number;
  /** The column (CSV) or field (NDJSON) at fault, dotted; empty for the row as a whole. */
  path: string;
  message: string;
}

/** What a batch of rows did, counted as the job's summary counts it. */
export interface ImportSummary {
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
}

/** The fields a row sets; a field left out is left as it is (or takes a new user's default). */
interface RowFields {
  email?: unknown;
  /** Name parts (an object), or whatever an NDJSON record held there. */
  name?: unknown;
  isActive?: unknown;
  /** Access role names. */
  accessRoles?: unknown;
  /** A job title name, or `null` for none. */
  job?: unknown;
  phone?: unknown;
}

export interface ImportRow {
  /** 1-based number of the row among the file's rows (the checkpoint counts these). */
  index: number;
  /** The line of the file it starts on. */
  line: number;
  fields: RowFields;
  /** Set when the row could not be read at all. */
  errors?: RowError[];
}

/** Where a field's error is reported: the CSV column, or the NDJSON record's path. */
export function reportedPath(path: string, csv: boolean): string {
  if (!csv) return path;
  const column = Object.entries(CSV_COLUMNS).find(([, field]) => path === field || path.startsWith(`${field}.`));
  return column ? column[0] : path;
}

export class ImportFileError extends Error {}

/** What `isActive` may hold, as the export writes it (any case); "yes" or "1" stays text and is the row's error, never a guess (docs/api.md#import). */
const ACTIVE_CELLS = new Map([
  ["true", true],
  ["false", false],
]);

/** The rows of a CSV file, from its chunks. A row that cannot be read is reported, not fatal. */
async function* csvRows(source: AsyncIterable<Buffer>): AsyncGenerator<ImportRow> {
  let header: string[] | undefined;
  let index = 0;
  for await (const record of csvRecords(source, MAX_RECORD_BYTES)) {
    const { line } = record;
    if (!header) {
      if (record.error !== undefined)
        throw new ImportFileError(`The first line, which must name the columns, cannot be read: ${record.error}.`);
      header = record.cells.map((name) => name.trim());
      if (!header.includes("email"))
        throw new ImportFileError(
          "The file has no email column: the first line must name the columns (email, firstName, lastName, secondLastName, isActive, accessRoles, jobTitle).",
        );
      continue;
    }
    if (record.error !== undefined || record.cells.length !== header.length) {
      const why = record.error ?? `it has ${record.cells.length} cells where the header names ${header.length} columns`;
      yield { index: ++index, line, fields: {}, errors: [{ line, path: "", message: `cannot be read: ${why}` }] };
      continue;
    }
    const cells = record.cells;
    const fields: RowFields = {};
    header.forEach((column, at) => {
      // An own column only: a header cell such as "constructor" names an inherited member, not a field.
      const field = Object.hasOwn(CSV_COLUMNS, column) ? CSV_COLUMNS[column] : undefined;
      if (!field) return;
      // The export's guard against spreadsheet formulas is undone first (lib/base/shared/csv-cells.ts).
      const cell = restoreCell(cells[at] ?? "").trim();
      if (field.startsWith("name.")) {
        if (cell !== "") ((fields.name as Record<string, unknown> | undefined) ??= {})[field.slice(5)] = cell;
      } else if (field === "isActive") {
        if (cell !== "") fields.isActive = ACTIVE_CELLS.get(cell.toLowerCase()) ?? cell;
      } else if (field === "accessRoles") {
        if (cell !== "")
          fields.accessRoles = cell
            .split(";")
            .map((role) => role.trim())
            .filter(Boolean);
      } else if (field === "email") {
        fields.email = cell;
      } else {
        // An empty jobTitle or phone cell means none.
        (fields as Record<string, unknown>)[field] = cell === "" ? null : cell;
      }
    });
    yield { index: ++index, line, fields };
  }
  if (!header) throw new ImportFileError("The file is empty: it has no header row.");
}

/**
 * The lines of a file, each at most `maxBytes` (`tooLarge` past that, its bytes not kept), with
 * their numbers; a last line without `\n` counts, an empty one after the last `\n` does not.
 */
async function* boundedLines(
  source: AsyncIterable<Buffer>,
  maxBytes: number,
): AsyncGenerator<{ line: number; text: string; tooLarge: boolean }> {
  let parts: Buffer[] = [];
  let size = 0;
  let line = 0;
  const end = () => {
    line++;
    const tooLarge = size > maxBytes;
    const text = tooLarge ? "" : Buffer.concat(parts).toString("utf8");
    parts = [];
    size = 0;
    return { line, text: line === 1 ? text.replace(/^\uFEFF/, "") : text, tooLarge };
  };
  for await (const chunk of source) {
    let from = 0;
    for (let at = chunk.indexOf(0x0a); at !== -1; at = chunk.indexOf(0x0a, from)) {
      size += at - from;
      if (size <= maxBytes) parts.push(chunk.subarray(from, at));
      yield end();
      from = at + 1;
    }
    size += chunk.length - from;
    if (size <= maxBytes) parts.push(chunk.subarray(from));
    else parts = [];
  }
  if (size > 0) yield end();
}

/** The rows of an NDJSON file: one JSON object a line, blank lines skipped. */
async function* ndjsonRows(source: AsyncIterable<Buffer>): AsyncGenerator<ImportRow> {
  let index = 0;
  for await (const { line, text, tooLarge } of boundedLines(source, MAX_RECORD_BYTES)) {
    if (tooLarge) {
      yield {
        index: ++index,
        line,
        fields: {},
        errors: [
          {
            line,
            path: "",
            message: `cannot be read: the record is larger than ${MAX_RECORD_BYTES} bytes, the most a row may hold`,
          },
        ],
      };
      continue;
    }
    if (text.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      yield {
        index: ++index,
        line,
        fields: {},
        errors: [{ line, path: "", message: `is not valid JSON: ${(error as Error).message}` }],
      };
      continue;
    }
    if (value === null || typeof value !== "object" || Array.isArray(value))
      yield {
        index: ++index,
        line,
        fields: {},
        errors: [{ line, path: "", message: "must be a JSON object (a user record)" }],
      };
    else yield { index: ++index, line, fields: recordFields(value as Record<string, unknown>) };
  }
}

/** The fields of an NDJSON record: the user record's shape (`job` or `jobTitle` by name), or the CSV's flat columns. */
function recordFields(record: Record<string, unknown>): RowFields {
  const fields: RowFields = {};
  if ("email" in record) fields.email = record.email;
  if (record.name !== undefined && record.name !== null)
    fields.name = isPlainObject(record.name) ? { ...record.name } : record.name;
  for (const [column, part] of [
    ["displayName", "displayName"],
    ["firstName", "names"],
    ["lastName", "lastName"],
    ["secondLastName", "secondLastName"],
  ] as const) {
    if (record[column] !== undefined && (fields.name === undefined || isPlainObject(fields.name)))
      ((fields.name as Record<string, unknown> | undefined) ??= {})[part] = record[column];
  }
  if (record.isActive !== undefined) fields.isActive = record.isActive;
  if (record.accessRoles !== undefined)
    fields.accessRoles =
      typeof record.accessRoles === "string"
        ? record.accessRoles
            .split(";")
            .map((role) => role.trim())
            .filter(Boolean)
        : record.accessRoles;
  if (record.job !== undefined) fields.job = record.job;
  else if (record.jobTitle !== undefined) fields.job = record.jobTitle;
  if (record.phone !== undefined) fields.phone = record.phone;
  return fields;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** The rows of a file of `mediaType`, read from its chunks. */
export function importRows(mediaType: string, source: AsyncIterable<Buffer>): AsyncGenerator<ImportRow> {
  return mediaType === CSV_TYPE ? csvRows(source) : ndjsonRows(source);
}
