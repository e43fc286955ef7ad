/**
 * Entity tags of single records (docs/api.md#conditional-requests). A tag is a digest of the
 * stored values that change whenever the record changes (its `modifiedAt`, a survey's `__v`…),
 * so it changes with every write of the record and only then, on any MongoDB deployment, and
 * says nothing of the record itself.
 */
import { createHash } from "node:crypto";

/** The strong tag, quoted as it is sent in `ETag`, of a record's version values. */
export function entityTag(kind: string, version: readonly unknown[]): string {
  const digest = createHash("sha256")
    .update(JSON.stringify([kind, ...version]))
    .digest("base64url")
    .slice(0, 27);
  return `"${digest}"`;
}

/**
 * Whether an `If-Match` / `If-None-Match` value names `tag`: `*`, or one of its comma-separated
 * tags compared exactly as sent (a weak tag matches only itself).
 */
export function matchesTag(header: string, tag: string): boolean {
  const value = header.trim();
  if (value === "*") return true;
  return (value.match(/(?:W\/)?"[^"]*"/g) ?? []).some((candidate) => candidate === tag);
}
