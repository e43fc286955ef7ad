import { MAX_PAGE_DEPTH } from "@/lib/base/schemas/common";
import { describe, expect, it } from "vitest";
import { pageReach } from "./page-reach";

describe("pageReach", () => {
  it("offers every page of a list within the depth", () => {
    expect(pageReach(1, 10, 293, 10)).toEqual({
      pages: 30,
      deepest: MAX_PAGE_DEPTH / 10,
      capped: false,
      hasNext: true,
    });
    expect(pageReach(30, 10, 293, 3).hasNext).toBe(false);
  });

  it("stops at the last page the API serves by number, and says records lie beyond", () => {
    expect(pageReach(1, 10, 1_000_000, 10)).toEqual({ pages: 1000, deepest: 1000, capped: true, hasNext: true });
    expect(pageReach(1000, 10, 1_000_000, 10).hasNext).toBe(false);
    expect(pageReach(1, 25, 10_000, 25)).toEqual({ pages: 400, deepest: 400, capped: false, hasNext: true });
    expect(pageReach(1, 25, 10_001, 25).capped).toBe(true);
    expect(pageReach(1, 30, 100_000, 30).pages).toBe(333);
  });

  it("without a total: Next while pages come back full, up to the depth", () => {
    expect(pageReach(5, 20, undefined, 20)).toEqual({ pages: undefined, deepest: 500, capped: false, hasNext: true });
    expect(pageReach(500, 20, undefined, 20)).toEqual({ pages: undefined, deepest: 500, capped: true, hasNext: false });
    expect(pageReach(7, 20, undefined, 4).hasNext).toBe(false);
  });
});
