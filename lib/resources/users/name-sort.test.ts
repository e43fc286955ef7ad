/**
 * `nameSort`, the stored key of the order by name (docs/api.md#sorting): derived from the name the
 * pages show, and given once at start to users stored before it.
 */
import { newId } from "@/lib/kernel/ids";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { describe, expect, it } from "vitest";
import { backfillNameSort, User } from "./repository";
import { nameSortKey } from "./search";

describe("nameSort", () => {
  const db = useTestDatabase();

  it("is the shown name, lowercase and without accents; the e-mail when there is no name", () => {
    expect(nameSortKey({ displayName: "Ávila Núñez", names: "x", lastName: "y", secondLastName: "" }, "a@b.io")).toBe(
      "avila nunez",
    );
    expect(nameSortKey({ displayName: "", names: "Zoë", lastName: "Ünal", secondLastName: "" }, "a@b.io")).toBe(
      "zoe unal",
    );
    expect(nameSortKey(null, "ana.perez@acme.io")).toBe("ana.perez@acme.io");
  });

  it("is given at start to users stored without it, and leaves the others alone", async () => {
    const users = db.mongoose.connection.db!.collection("users");
    await User.createIndexes();
    const old = {
      _id: newId(),
      email: "old@acme.io",
      name: { displayName: "Élodie Roux", names: "Élodie", lastName: "Roux", secondLastName: "" },
      companies: [],
      createdAt: new Date(),
      modifiedAt: new Date(),
    };
    const unnamed = {
      _id: newId(),
      email: "nobody@acme.io",
      name: null,
      companies: [],
      createdAt: new Date(),
      modifiedAt: new Date(),
    };
    const current = {
      _id: newId(),
      email: "new@acme.io",
      name: null,
      nameSort: "kept as it is",
      companies: [],
      createdAt: new Date(),
      modifiedAt: new Date(),
    };
    await users.insertMany([old, unnamed, current]);
    await backfillNameSort();
    const keys = Object.fromEntries(
      (await users.find({}, { projection: { email: 1, nameSort: 1 } }).toArray()).map((user) => [
        user.email,
        user.nameSort,
      ]),
    );
    expect(keys).toEqual({
      "old@acme.io": "elodie roux",
      "nobody@acme.io": "nobody@acme.io",
      "new@acme.io": "kept as it is",
    });
    // Run again: nothing left to do.
    await backfillNameSort();
    expect(await users.countDocuments({ nameSort: { $exists: false } })).toBe(0);
  });
});
