import { escapeRegExp } from "@/lib/kernel/text";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fold, searchFilter, searchTerms, userKeywords } from "./search";

describe("search keywords", () => {
  it("splits the documented example e-mail and adds the joined token", () => {
    expect(userKeywords(null, "Ana.Pérez@Acme.io")).toEqual(["ana", "perez", "acme", "io", "anaperezacmeio"]);
  });

  it("adds every word of every name part, lowercased and without accents", () => {
    const keywords = userKeywords(
      { displayName: "Íñigo Núñez", names: "Íñigo José", lastName: "Núñez", secondLastName: "Müller-Peña" },
      "inigo@acme.io",
    );
    expect(keywords).toEqual(["inigo", "nunez", "jose", "muller", "pena", "acme", "io", "inigoacmeio"]);
  });

  it("has no duplicates and tolerates an empty second last name", () => {
    const keywords = userKeywords(
      { displayName: "Ana", names: "Ana", lastName: "Ana", secondLastName: "" },
      "ana@ana.io",
    );
    expect(keywords).toEqual(["ana", "io", "anaanaio"]);
  });

  it("folds accents and case", () => {
    expect(fold("ÁÉÍÓÚ Ñ ü Ç")).toBe("aeiou n u c");
  });

  it("turns a query into distinct folded terms split on spaces and punctuation", () => {
    expect(searchTerms("  Pérez, ANA  pérez.acme ")).toEqual(["perez", "ana", "acme"]);
    expect(searchTerms("...!!")).toEqual([]);
  });

  it("builds anchored prefix filters, one per term", () => {
    expect(searchFilter("Pé")).toEqual({ search: { $regex: "^pe" } });
    expect(searchFilter("ana pe")).toEqual({ $and: [{ search: { $regex: "^ana" } }, { search: { $regex: "^pe" } }] });
    expect(searchFilter(".*")).toBeUndefined();
  });

  it("escapes every regular-expression metacharacter", () => {
    const meta = ".*+?^${}()|[]\\/";
    expect(new RegExp(`^${escapeRegExp(meta)}$`).test(meta)).toBe(true);
  });

  it("property: every word of a name or e-mail is found by any of its prefixes", () => {
    const word = fc.stringMatching(/^[A-Za-zÁÉÍÓÚáéíóúÑñÜü]{1,12}$/);
    fc.assert(
      fc.property(word, word, word, (names, lastName, domain) => {
        const email = `${names}.${lastName}@${domain}.io`;
        const keywords = userKeywords(
          { displayName: `${names} ${lastName}`, names, lastName, secondLastName: "" },
          email,
        );
        for (const keyword of keywords) expect(keyword).toBe(fold(keyword));
        for (const source of [names, lastName, domain]) {
          const folded = fold(source);
          for (let length = 1; length <= folded.length; length++) {
            const [term] = searchTerms(source.slice(0, length));
            if (term) expect(keywords.some((keyword) => keyword.startsWith(term))).toBe(true);
          }
        }
      }),
    );
  });
});
