/**
 * `$dateFromParts` as MongoDB reads it: a part left out is its smallest value (month 1, day 1,
 * hour 0 ...). mingo takes a missing month or day for 0, so `{ year: 2026, month: 2 }` would be
 * January 31st; the defaults are written into every `$dateFromParts` of a pipeline before mingo
 * compiles it. `$literal` values are left alone.
 */
import { isPlainObject } from "../storage/keys";

export function withDatePartDefaults<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withDatePartDefaults) as T;
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === "$literal") out[key] = inner;
    else if (key === "$dateFromParts" && isPlainObject(inner) && !("isoWeekYear" in inner))
      out[key] = { month: 1, day: 1, ...withDatePartDefaults(inner) };
    else out[key] = withDatePartDefaults(inner);
  }
  return out as T;
}
