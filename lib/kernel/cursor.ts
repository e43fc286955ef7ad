/**
 * Cursor paging of every list (docs/api.md#cursor-paging): keyset reads on the list's sort key
 * plus `_id`, and the opaque cursor that carries the position of a page's last record.
 *
 * A cursor is `<payload>.<mac>`: the position as base64url JSON, and an HMAC of the list it
 * belongs to (company, path and every filter, see {@link listScope}) with that payload, keyed by
 * the server's secret. So a cursor altered by a client, truncated, or taken from another list, another
 * filter or another company fails the check and is refused with `400 invalid_request`; the
 * position it holds is never trusted before that. Nothing in it is secret: the MAC is there for
 * integrity, and the payload only names values the caller has already been shown.
 */
import { MAX_PAGE_DEPTH } from "@/lib/base/schemas/common";
import type { Document, Sort } from "mongodb";
import { createHmac, timingSafeEqual } from "node:crypto";
import { ServiceError } from "./errors";
import { oid } from "./ids";
import { JsonText } from "./json-text";
import { purposeKey } from "./secret";

/** A field of a list's sort order, with the type its values have in the database. */
interface SortField {
  name: string;
  type: "date" | "objectId" | "string" | "number";
}

/**
 * The order of a list: its fields (the last one unique within the list, as `_id` is) and one
 * direction for all of them, so one index walked one way serves it.
 */
export interface ListOrder {
  fields: readonly SortField[];
  direction: 1 | -1;
}

/** The paging parameters every list accepts. */
export interface PagingQuery {
  page?: number;
  limit: number;
  cursor?: string;
}

/** What binds a cursor to its list: the caller's company, the list's path and its filters. */
export interface ListScope {
  companyId: string;
  path: string;
  /** The parsed query without its paging parameters; its order of keys does not matter. */
  filters: Record<string, unknown>;
}

/** The parameters that move within one list: they are not part of the list's identity. */
const PAGING_PARAMETERS = new Set(["page", "limit", "cursor", "count"]);

/** The scope of a list query: every parameter but those of {@link PAGING_PARAMETERS}. */
export function listScope(companyId: string, path: string, query: object): ListScope {
  const filters = Object.fromEntries(
    Object.entries(query).filter(([key, value]) => !PAGING_PARAMETERS.has(key) && value !== undefined),
  );
  return { companyId, path, filters };
}

/** How to read one page: the sort, the window, and the condition that starts after the cursor. */
export interface PageRead {
  sort: Sort;
  skip: number;
  /** One more than the page holds: whether a record follows tells whether there is a next page. */
  limit: number;
  /** To be met besides the list's own filter (see {@link withCondition}); absent on a first page. */
  after?: Document;
}

/** Plans the read of a page by number or by cursor; a bad cursor, or both, is `400 invalid_request`. */
export async function pageRead(query: PagingQuery, order: ListOrder, scope: ListScope): Promise<PageRead> {
  const sort = Object.fromEntries(order.fields.map((field) => [field.name, order.direction])) as Sort;
  if (query.cursor === undefined) {
    const page = query.page ?? 1;
    // A page by number skips every record before it; past the depth the cursor goes on (docs/api.md#paging).
    if (page * query.limit > MAX_PAGE_DEPTH) throw tooDeep(query.limit);
    return { sort, skip: (page - 1) * query.limit, limit: query.limit + 1 };
  }
  if (query.page !== undefined) throw invalidCursor("cannot be combined with page: send one of them");
  const position = await decodeCursor(query.cursor, order, scope);
  return { sort, skip: 0, limit: query.limit + 1, after: afterCondition(order, position) };
}

/** A page of a list: its records and the cursor of the next one (`null` after the last). */
export interface Page<T> {
  items: T[];
  next: string | null;
}

/**
 * The page out of what {@link pageRead} read: at most `limit` records, and, when another record
 * followed, the cursor positioned on the page's last record. `position` gives a record's values
 * of the order's fields (a date as `Date` or ISO text, an id as `ObjectId` or hex).
 */
export async function pageOf<T>(
  docs: T[],
  query: PagingQuery,
  order: ListOrder,
  scope: ListScope,
  position: (doc: T) => unknown[],
): Promise<Page<T>> {
  if (docs.length <= query.limit) return { items: docs, next: null };
  const items = docs.slice(0, query.limit);
  return { items, next: await encodeCursor(position(items[items.length - 1]), order, scope) };
}

/**
 * A page read on a read worker: each record of type `T` written as JSON there (./json-text.ts),
 * beside the values its cursor reads of it, which the answer may not show
 * (docs/architecture.md#read-workers).
 */
export interface WrittenPage<P, T = unknown> {
  texts: Written<T>[];
  positions: P[];
}

/** JSON text of a `T`: a string, as it crosses to the HTTP thread, that keeps its type. */
type Written<T> = string & { readonly __written?: T };

/** The {@link WrittenPage} of `records`, each written as it is and its position taken by `position`. */
export const writtenPage = <R, P>(records: R[], position: (record: R, at: number) => P): WrittenPage<P, R> => ({
  texts: records.map((record) => JSON.stringify(record)),
  positions: records.map((record, at) => position(record, at)),
});

/** {@link pageOf} for a {@link WrittenPage}: the page's records as the texts to splice into the answer. */
export async function pageOfWritten<P, T>(
  written: WrittenPage<P, T>,
  query: PagingQuery,
  order: ListOrder,
  scope: ListScope,
  position: (at: P) => unknown[],
): Promise<Page<JsonText<T>>> {
  const rows = written.texts.map((text, at) => ({ text, at: written.positions[at] }));
  const page = await pageOf(rows, query, order, scope, (row) => position(row.at));
  return { items: page.items.map((row) => new JsonText<T>(row.text)), next: page.next };
}

/**
 * The paging fields of a list answer's `data`: `page` when paged by number, `limit`, `next`, and
 * `counter` when it was asked for (docs/api.md#cursor-paging).
 */
export function pageFields(
  query: PagingQuery,
  page: Page<unknown>,
  counter: number | undefined,
): { page?: number; limit: number; next: string | null; counter?: number } {
  return {
    ...(query.cursor === undefined ? { page: query.page ?? 1 } : {}),
    limit: query.limit,
    next: page.next,
    ...(counter === undefined ? {} : { counter }),
  };
}

/** `filter` with `condition` added to its `$and` (the planner reads bounds there too). */
export function withCondition<F extends object>(filter: F, condition: Document | undefined): F {
  if (!condition) return filter;
  const and = (filter as { $and?: Document[] }).$and ?? [];
  return { ...filter, $and: [...and, condition] };
}

/**
 * After the position in the order: `(a, b) < (va, vb)` for a descending order, as a range on the
 * first field (which bounds the index walk, so a deep page reads what the first does) and the
 * comparison of the whole tuple.
 */
function afterCondition(order: ListOrder, position: unknown[]): Document {
  const strictly = order.direction === 1 ? "$gt" : "$lt";
  const orEqual = order.direction === 1 ? "$gte" : "$lte";
  const [first] = order.fields;
  if (order.fields.length === 1) return { [first.name]: { [strictly]: position[0] } };
  const alternatives = order.fields.map((field, index) => ({
    ...Object.fromEntries(order.fields.slice(0, index).map((before, i) => [before.name, position[i]])),
    [field.name]: { [strictly]: position[index] },
  }));
  return { $and: [{ [first.name]: { [orEqual]: position[0] } }, { $or: alternatives }] };
}

const MAC_LENGTH = 22;
const CURSOR = new RegExp(`^([A-Za-z0-9_-]{1,1024})\\.([A-Za-z0-9_-]{${MAC_LENGTH}})$`);

async function mac(payload: string, scope: ListScope): Promise<string> {
  const bound = JSON.stringify([scope.companyId, scope.path, canonical(scope.filters), payload]);
  return createHmac("sha256", await purposeKey("cursor"))
    .update(bound)
    .digest("base64url")
    .slice(0, MAC_LENGTH);
}

async function encodeCursor(position: unknown[], order: ListOrder, scope: ListScope): Promise<string> {
  const values = order.fields.map((field, index) => encodeValue(field, position[index]));
  const payload = Buffer.from(JSON.stringify(values)).toString("base64url");
  return `${payload}.${await mac(payload, scope)}`;
}

async function decodeCursor(cursor: string, order: ListOrder, scope: ListScope): Promise<unknown[]> {
  const match = CURSOR.exec(cursor);
  if (!match) throw invalidCursor("is not a cursor of this list");
  const [, payload, sent] = match;
  const expected = Buffer.from(await mac(payload, scope));
  if (!timingSafeEqual(Buffer.from(sent), expected))
    throw invalidCursor("is not a cursor of this list: altered, or from another list or filter");
  let values: unknown;
  try {
    values = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    values = undefined;
  }
  // Only a cursor this server made passes the MAC; its shape is checked all the same.
  if (!Array.isArray(values) || values.length !== order.fields.length)
    throw invalidCursor("is not a cursor of this list");
  return order.fields.map((field, index) => decodeValue(field, values[index]));
}

function encodeValue(field: SortField, value: unknown): string | number {
  switch (field.type) {
    case "date":
      return value instanceof Date ? value.getTime() : new Date(String(value)).getTime();
    case "objectId":
      return hasHex(value) ? value.toHexString() : String(value);
    case "number":
      return Number(value);
    case "string":
      return String(value);
  }
}

function decodeValue(field: SortField, value: unknown): unknown {
  const bad = () => invalidCursor("is not a cursor of this list");
  switch (field.type) {
    case "date":
      if (typeof value !== "number" || !Number.isFinite(value)) throw bad();
      return new Date(value);
    case "objectId":
      if (typeof value !== "string" || !/^[0-9a-f]{24}$/.test(value)) throw bad();
      return oid(value);
    case "number":
      if (typeof value !== "number" || !Number.isFinite(value)) throw bad();
      return value;
    case "string":
      if (typeof value !== "string") throw bad();
      return value;
  }
}

const hasHex = (value: unknown): value is { toHexString(): string } =>
  typeof (value as { toHexString?: unknown } | null)?.toHexString === "function";

/** JSON with object keys sorted, so equal filters give equal text whatever their key order. */
function canonical(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

const invalidCursor = (message: string) =>
  new ServiceError("invalid_request", "The request is not valid.", [{ path: "cursor", message }]);

/** A page by number past {@link MAX_PAGE_DEPTH}: the last page allowed, and the cursor as the way on. */
function tooDeep(limit: number): ServiceError {
  const last = Math.floor(MAX_PAGE_DEPTH / limit);
  return new ServiceError("invalid_request", "The request is not valid.", [
    {
      path: "page",
      message: `reaches past the first ${MAX_PAGE_DEPTH} records (page × limit): at limit=${limit} the last page by number is ${last}; page on with cursor, the data.next of a page, instead`,
    },
  ]);
}
