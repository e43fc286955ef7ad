/**
 * A value read with `promoteValues: false`, with each BSON value replaced by its type's name
 * (`"Long"`, `"Double"`, `"Int32"`...) and documents and arrays kept: what a test of kept number
 * types compares.
 */
export function bsonTypeNames(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(bsonTypeNames);
  if (value !== null && typeof value === "object" && !("_bsontype" in value)) {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, bsonTypeNames(inner)]));
  }
  return (value as { _bsontype?: string })._bsontype;
}
