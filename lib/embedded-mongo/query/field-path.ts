/**
 * MongoDB's `FieldPath` rules for a path an aggregation stage names (`as`, `depthField`, a window's
 * output), checked where the stage is parsed: one check for every stage that names a path.
 */

/** Throws `fail(code, message)` with MongoDB's code when `path` is not a field path MongoDB accepts. */
export function checkFieldPath(path: string, fail: (code: number, message: string) => Error): void {
  if (path === "") throw fail(40352, "FieldPath cannot be constructed with empty string");
  const parts = path.split(".");
  if (parts.some((p) => p === "")) throw fail(15998, "FieldPath field names may not be empty strings.");
  if (parts.some((p) => p.startsWith("$")))
    throw fail(16410, "FieldPath field names may not start with '$'. Consider using $getField or $setField.");
  if (path.includes("\0")) throw fail(16411, "FieldPath field names may not contain '\\0'.");
}
