import { describe, expect, it } from "vitest";
import { parseRange, rangeQuery, searchOf } from "./survey-content";

describe("the date range of the results and answers pages", () => {
  it("reads real days from the URL and ignores anything else", () => {
    expect(parseRange(new URLSearchParams("from=2026-11-01&to=2026-11-30"))).toEqual({
      from: "2026-11-01",
      to: "2026-11-30",
    });
    expect(parseRange(new URLSearchParams("from=2026-13-45&to=yesterday"))).toEqual({ from: undefined, to: undefined });
    expect(parseRange(new URLSearchParams("from=2026-11-01T00:00:00Z"))).toEqual({ from: undefined, to: undefined });
  });

  it("asks the API for whole days, both included, in UTC", () => {
    expect(rangeQuery({ from: "2026-11-01", to: "2026-11-30" }, "UTC")).toEqual({
      from: "2026-11-01T00:00:00.000Z",
      to: "2026-11-30T23:59:59.999Z",
    });
    // The company's zone: Los Angeles is UTC-7 on 1 November (summer time) and UTC-8 on 30 November.
    expect(rangeQuery({ from: "2026-11-01", to: "2026-11-30" }, "America/Los_Angeles")).toEqual({
      from: "2026-11-01T07:00:00.000Z",
      to: "2026-12-01T07:59:59.999Z",
    });
    expect(rangeQuery({}, "UTC")).toEqual({ from: undefined, to: undefined });
  });

  it("writes only the values that are set back into the URL", () => {
    expect(searchOf({ question: undefined, from: "2026-11-01", to: undefined })).toBe("?from=2026-11-01");
    expect(searchOf({})).toBe("");
  });
});
