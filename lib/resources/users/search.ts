/**
 * Search keywords of a user and the terms of a search query (docs/api.md#searching-users): lowercase, accents
 * removed, split on anything that is not a letter or digit. `Ana.Pérez@Acme.io` gives `ana`,
 * `perez`, `acme`, `io` and the whole e-mail without punctuation, `anaperezacmeio`.
 */
import { escapeRegExp } from "@/lib/kernel/text";
import type { UserName } from "@/lib/resources/users/contract";

const NOT_WORD = /[^\p{L}\p{N}]+/gu;

/** Lowercase without diacritics: `Pérez` → `perez`, `Ñandú` → `nandu`. */
export function fold(text: string): string {
  return text
    .normalize("NFD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase();
}

function words(text: string): string[] {
  return fold(text).split(NOT_WORD).filter(Boolean);
}

export function userKeywords(name: UserName | null | undefined, email: string): string[] {
  const keywords = new Set<string>();
  if (name) {
    for (const part of [name.displayName, name.names, name.lastName, name.secondLastName]) {
      for (const word of words(part ?? "")) keywords.add(word);
    }
  }
  for (const word of words(email)) keywords.add(word);
  const joined = fold(email).replace(NOT_WORD, "");
  if (joined) keywords.add(joined);
  return [...keywords];
}

/**
 * The stored key of the order by name (docs/api.md#sorting): the name the lists show (display
 * name, else first and last names, else the e-mail), lowercase and without accents, so `Ávila`
 * sorts beside `avila` and before `Bravo` on real MongoDB and the embedded database alike (a plain
 * binary comparison; no collation needed).
 */
export function nameSortKey(name: UserName | null | undefined, email: string): string {
  const shown = name?.displayName || [name?.names, name?.lastName].filter(Boolean).join(" ") || email;
  return fold(shown).trim();
}

/** The terms of a `search` query; a user matches when each is a prefix of one of its keywords. */
export const searchTerms = (query: string): string[] => [...new Set(words(query))];

/** The filter on `search` for a query: anchored prefixes, so an index can answer it. */
export function searchFilter(query: string): Record<string, unknown> | undefined {
  const terms = searchTerms(query);
  if (terms.length === 0) return undefined;
  const prefix = (term: string) => ({ search: { $regex: `^${escapeRegExp(term)}` } });
  return terms.length === 1 ? prefix(terms[0]) : { $and: terms.map(prefix) };
}
