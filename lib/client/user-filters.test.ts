import { USER_SORTS } from "@/lib/resources/users/contract";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_FILTERS,
  PAGE_SIZES,
  parseUserFilters,
  userFiltersToSearch,
  userListQuery,
  withChange,
  type UserFilters,
} from "./user-filters";

const id = fc.stringMatching(/^[0-9a-f]{24}$/);
const day = fc
  .date({ min: new Date("2000-01-01"), max: new Date("2099-12-31"), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));
const optional = <T>(arb: fc.Arbitrary<T>, none: T) => fc.oneof(fc.constant(none), arb);

const filters: fc.Arbitrary<UserFilters> = fc.record({
  search: fc.string({ maxLength: 30 }),
  isActive: fc.constantFrom("true", "false", "all"),
  accessRole: optional(id, ""),
  job: optional(id, ""),
  property: optional(id, ""),
  bot: optional(id, ""),
  relatedUser: optional(id, ""),
  email: optional(fc.constantFrom("a@b.io", "a@b.io, c@d.io"), ""),
  createdFrom: optional(day, ""),
  createdTo: optional(day, ""),
  modifiedFrom: optional(day, ""),
  modifiedTo: optional(day, ""),
  page: fc.integer({ min: 1, max: 500 }),
  limit: fc.constantFrom(...PAGE_SIZES),
  orderBy: fc.constantFrom("asc", "desc"),
  sort: fc.constantFrom(...USER_SORTS),
});

const roundTrip = (f: UserFilters) => parseUserFilters(new URLSearchParams(userFiltersToSearch(f)));

describe("users list view <-> URL", () => {
  it("a view survives the trip through its URL", () => {
    fc.assert(
      fc.property(filters, (f) => {
        expect(roundTrip(f)).toEqual(f);
      }),
    );
  });

  it("the default view is the bare URL, and defaults never appear in one", () => {
    expect(userFiltersToSearch(DEFAULT_FILTERS)).toBe("");
    expect(userFiltersToSearch({ ...DEFAULT_FILTERS, isActive: "false", page: 2 })).toBe("?isActive=false&page=2");
  });

  it("uses the list's own names for the date ranges", () => {
    expect(userFiltersToSearch({ ...DEFAULT_FILTERS, createdFrom: "2026-01-02", modifiedTo: "2026-02-03" })).toBe(
      "?created_gte=2026-01-02&modified_lte=2026-02-03",
    );
  });

  it("drops values the list would refuse instead of sending them", () => {
    const parsed = parseUserFilters(
      new URLSearchParams("accessRole=nope&page=-3&limit=7&isActive=maybe&orderBy=up&created_gte=yesterday"),
    );
    expect(parsed).toEqual(DEFAULT_FILTERS);
  });

  it("goes back to page 1 when anything but the page changes", () => {
    expect(withChange({ ...DEFAULT_FILTERS, page: 4 }, { job: "a".repeat(24) }).page).toBe(1);
  });

  it("asks for the count and turns days into whole-day ISO ranges in the company's zone", () => {
    const query = userListQuery(
      {
        ...DEFAULT_FILTERS,
        createdFrom: "2026-03-01",
        createdTo: "2026-03-01",
        email: "a@b.io; c@d.io",
        bot: "b".repeat(24),
      },
      "Pacific/Auckland",
    );
    expect(query.count).toBe(true);
    expect(query.email).toEqual(["a@b.io", "c@d.io"]);
    expect(query.bot).toEqual(["b".repeat(24)]);
    // 1 March in Auckland (UTC+13 in summer) is 28 February 11:00 to 1 March 10:59:59.999 UTC.
    expect(query.created_gte).toBe("2026-02-28T11:00:00.000Z");
    expect(query.created_lte).toBe("2026-03-01T10:59:59.999Z");
    expect(userListQuery({ ...DEFAULT_FILTERS, modifiedFrom: "2026-03-01" }, "UTC").modified_gte).toBe(
      "2026-03-01T00:00:00.000Z",
    );
  });
});
