/**
 * `$dateFromParts` as MongoDB reads it: a part left out is its smallest value (month 1, day 1,
 * hour 0 ...). mingo takes a missing month or day for 0, so `{ year: 2026, month: 2 }` would be
 * January 31st; the defaults are written into every `$dateFromParts` of a pipeline before mingo
 * compiles it. `$literal` values are left alone.
 */
import { numberTypeAt, setNumberType } from "../storage/bson-values";
import { isPlainObject } from "../storage/keys";

export function withDatePartDefaults<T>(value: T): T {
  if (Array.isArray(value)) {
    const out = value.map(withDatePartDefaults);
    // The copy keeps the BSON types of its numbers ($bucket answers its boundaries as given).
    out.forEach((_, i) => setNumberType(out, String(i), numberTypeAt(value, String(i))));
    return out as T;
  }
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === "$literal") out[key] = inner;
    else if (key === "$dateFromParts" && isPlainObject(inner) && !("isoWeekYear" in inner))
      out[key] = { month: 1, day: 1, ...withDatePartDefaults(inner) };
    else out[key] = withDatePartDefaults(inner);
    setNumberType(out, key, numberTypeAt(value, key));
  }
  return out as T;
}
