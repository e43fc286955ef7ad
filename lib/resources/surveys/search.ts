/**
 * `search` of the survey list (docs/api.md#searching-surveys): surveys whose `code` or `name` starts with the query,
 * ignoring case, matched literally.
 *
 * Each survey stores `searchPrefixes`, every prefix of its code and of its lowercased name up to
 * {@link MAX_PREFIX} code points, under the index `{ company, searchPrefixes, isActive,
 * modifiedAt, _id }`. A query of at most that length is one equality on that index: the union of
 * code and name matches comes for free, nothing is a regular expression, the page of active
 * surveys is read in order (ten index entries for ten surveys, however many match) and the
 * counter is counted on the index without reading a survey. A longer query uses its first
 * {@link MAX_PREFIX} code points on the index and checks the rest with anchored, escaped regular
 * expressions on `code` and `nameLower`.
 */
import { escapeRegExp } from "@/lib/kernel/text";
import type { Document } from "mongodb";

const MAX_PREFIX = 32;

/** Case folding of `search`: lowercase (accents are kept: the match is literal). */
export const lower = (text: string): string => text.toLowerCase();

/** The prefixes of one lowercase text, by code point (no lone surrogate halves). */
function prefixes(text: string): string[] {
  const points = Array.from(text).slice(0, MAX_PREFIX);
  return points.map((_, i) => points.slice(0, i + 1).join(""));
}

/** `searchPrefixes` of a survey. */
export function surveySearchPrefixes(code: string, name: string): string[] {
  return [...new Set([...prefixes(code), ...prefixes(lower(name))])];
}

/**
 * `searchPrefixes` for an update pipeline that sets the code, the name or both, run after the stage
 * that sets them. The prefixes of a text the write gives are computed here, as values; those of the
 * one it leaves are computed by the database from what it holds at that moment (a concurrent write
 * may have changed it since it was read). Computing both in the database cost about a third of the
 * pipeline update's time there (docs/benchmarks.md#the-databases-cpu-per-write-2026-11-29-17001735-utc).
 */
export function searchPrefixesUpdate(code: string | undefined, name: string | undefined): Document {
  if (code !== undefined && name !== undefined) return { $literal: surveySearchPrefixes(code, name) };
  const of = (text: string | undefined, field: string) =>
    text !== undefined
      ? { $literal: prefixes(text) }
      : {
          $map: {
            input: { $range: [1, { $add: [{ $min: [{ $strLenCP: field }, MAX_PREFIX] }, 1] }] },
            as: "length",
            in: { $substrCP: [field, 0, "$$length"] },
          },
        };
  return { $setUnion: [of(code, "$code"), of(name === undefined ? undefined : lower(name), "$nameLower")] };
}

/** The filter of a search query (a non-empty string). */
export function searchFilter(search: string): Document {
  const query = lower(search);
  const points = Array.from(query);
  if (points.length <= MAX_PREFIX) return { searchPrefixes: query };
  const prefix = { $regex: `^${escapeRegExp(query)}` };
  return { searchPrefixes: points.slice(0, MAX_PREFIX).join(""), $or: [{ code: prefix }, { nameLower: prefix }] };
}
