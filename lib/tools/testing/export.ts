/** What the export tests share (docs/api.md#export): the export's answer read whole, and its CSV rows as an import reads them. */
import { restoreCell } from "@/lib/base/shared/csv-cells";
import type { RouteHandler } from "@/lib/platform/http/binding";
import { parse } from "csv-parse/sync";
import { callText, type Tenant, type TextResult } from "./http";

/** GET `path` with a query through the export's `handler`, as the tenant's admin with `Admin: true`. */
export const downloader =
  (handler: RouteHandler, path: string) =>
  (tenant: Tenant, query = ""): Promise<TextResult> =>
    callText(handler, `${path}${query}`, { token: tenant.adminToken, admin: true });

/** The CSV's rows as objects by column, cells restored as an import reads them. */
export const csvRows = (text: string): Record<string, string>[] =>
  (parse(text, { columns: true }) as Record<string, string>[]).map((row) =>
    Object.fromEntries(Object.entries(row).map(([key, value]) => [key, restoreCell(value)])),
  );
