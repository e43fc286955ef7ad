/** What the exports of the lists share (docs/api.md#export): the format parameter and its document. */
import { z } from "zod";

const EXPORT_FORMATS = ["csv", "ndjson"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const exportFormat = z.enum(EXPORT_FORMATS, { error: "must be csv or ndjson" }).default("csv");

/** A list query's parameters that page it: an export has none of them (it streams every match). */
export const LIST_PAGING = { page: true, cursor: true, limit: true, count: true } as const;

/** The OpenAPI description of `format` and of the headers every export answers with. */
export const exportParameterDocs = {
  format: {
    description:
      "`csv` (the default): `text/csv`, UTF-8, a header row, CRLF line ends and RFC 4180 quoting. `ndjson`: `application/x-ndjson`, one record per line, as a read by id answers it.",
  },
};

/** The list's parameter docs without those of paging (and of the other parameters named). */
export function withoutPaging(
  parameters: Record<string, { description?: string; items?: Record<string, unknown> }>,
  others: string[] = [],
) {
  return Object.fromEntries(
    Object.entries(parameters).filter(([name]) => !Object.hasOwn(LIST_PAGING, name) && !others.includes(name)),
  );
}
