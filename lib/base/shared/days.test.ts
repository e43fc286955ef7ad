import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  canonicalTimeZone,
  dayBounds,
  dayLabel,
  dayOf,
  dayRange,
  isDay,
  nextDay,
  offsetLabel,
  timeZoneNames,
} from "./days";

const iso = (day: string, zone: string) => {
  const { start, end } = dayRange(day, zone);
  return [start.toISOString(), end.toISOString()];
};
const hours = (day: string, zone: string) => {
  const { start, end } = dayRange(day, zone);
  return (end.getTime() - start.getTime()) / 3_600_000;
};

describe("dayRange: a calendar day in a zone as [start, end)", () => {
  it("UTC is the day itself", () => {
    expect(iso("2026-11-25", "UTC")).toEqual(["2026-11-25T00:00:00.000Z", "2026-11-26T00:00:00.000Z"]);
  });

  it("a zone ahead of UTC starts the day the evening before (Pacific/Auckland, summer time UTC+13)", () => {
    expect(iso("2026-11-25", "Pacific/Auckland")).toEqual(["2026-11-24T11:00:00.000Z", "2026-11-25T11:00:00.000Z"]);
    // Winter: UTC+12.
    expect(iso("2026-06-15", "Pacific/Auckland")).toEqual(["2026-06-14T12:00:00.000Z", "2026-06-15T12:00:00.000Z"]);
  });

  it("a zone behind UTC starts it in the morning (America/Los_Angeles, UTC-8 in November)", () => {
    expect(iso("2026-11-25", "America/Los_Angeles")).toEqual(["2026-11-25T08:00:00.000Z", "2026-11-26T08:00:00.000Z"]);
  });

  it("a day of a clock change is 23 or 25 hours long", () => {
    // Europe/Paris: spring forward on 29 March 2026, fall back on 25 October 2026.
    expect(iso("2026-03-29", "Europe/Paris")).toEqual(["2026-03-28T23:00:00.000Z", "2026-03-29T22:00:00.000Z"]);
    expect(hours("2026-03-29", "Europe/Paris")).toBe(23);
    expect(iso("2026-10-25", "Europe/Paris")).toEqual(["2026-10-24T22:00:00.000Z", "2026-10-25T23:00:00.000Z"]);
    expect(hours("2026-10-25", "Europe/Paris")).toBe(25);
    // America/Los_Angeles: 8 March and 1 November 2026.
    expect(hours("2026-03-08", "America/Los_Angeles")).toBe(23);
    expect(hours("2026-11-01", "America/Los_Angeles")).toBe(25);
    // Pacific/Auckland: back on 5 April, forward on 27 September 2026.
    expect(hours("2026-04-05", "Pacific/Auckland")).toBe(25);
    expect(hours("2026-09-27", "Pacific/Auckland")).toBe(23);
  });

  it("a day whose midnight the clocks skip starts after the gap (America/Santiago, 6 September 2026)", () => {
    const { start } = dayRange("2026-09-06", "America/Santiago");
    expect(dayOf(start, "America/Santiago")).toBe("2026-09-06");
    expect(dayOf(new Date(start.getTime() - 1), "America/Santiago")).toBe("2026-09-05");
  });

  it("the same day is a different span in each zone: one answer at 10:30 UTC is on 25 November in UTC and Los Angeles, on 25 November in Auckland only until 11:00 UTC", () => {
    const answer = new Date("2026-11-25T10:30:00.000Z");
    const within = (zone: string, day: string) => {
      const { start, end } = dayRange(day, zone);
      return answer >= start && answer < end;
    };
    expect(within("UTC", "2026-11-25")).toBe(true);
    expect(within("America/Los_Angeles", "2026-11-25")).toBe(true);
    expect(within("Pacific/Auckland", "2026-11-25")).toBe(true);
    expect(within("Pacific/Auckland", "2026-11-26")).toBe(false);
    expect(within("America/Los_Angeles", "2026-11-24")).toBe(false);
  });

  it("for every zone and day: the day's instants fall on that day, and consecutive days tile time", () => {
    const zones = [
      "UTC",
      "Europe/Paris",
      "America/Los_Angeles",
      "Pacific/Auckland",
      "Asia/Kolkata",
      "America/Santiago",
      "Australia/Lord_Howe",
      "Pacific/Chatham",
      "America/St_Johns",
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.date({ min: new Date("2000-01-01"), max: new Date("2040-12-31"), noInvalidDate: true }),
        (zone, date) => {
          const day = date.toISOString().slice(0, 10);
          const { start, end } = dayRange(day, zone);
          expect(dayOf(start, zone)).toBe(day);
          expect(dayOf(new Date(end.getTime() - 1), zone)).toBe(day);
          expect(dayOf(end, zone)).toBe(nextDay(day));
          expect(dayRange(nextDay(day), zone).start).toEqual(end);
          const length = (end.getTime() - start.getTime()) / 3_600_000;
          expect(length).toBeGreaterThanOrEqual(23);
          expect(length).toBeLessThanOrEqual(25);
        },
      ),
    );
  });

  it("refuses what is no day or no zone", () => {
    for (const day of ["2026-02-30", "2026-13-01", "26-11-25", "2026-11-25T00:00", ""]) {
      expect(isDay(day), day).toBe(false);
      expect(() => dayRange(day, "UTC"), day).toThrow(RangeError);
    }
    for (const zone of ["Mars/Olympus", "", "Europe/Paris; drop", "../etc", "x".repeat(65)]) {
      expect(canonicalTimeZone(zone), zone).toBeUndefined();
      expect(() => dayRange("2026-11-25", zone), zone).toThrow(RangeError);
    }
    expect(canonicalTimeZone("utc")).toBe("UTC");
    expect(canonicalTimeZone("Europe/Paris")).toBe("Europe/Paris");
  });
});

describe("dayLabel: the day an instant falls on in a zone, as the pages print it", () => {
  it("prints the bounds of a filter's days as those days, in a zone ahead of UTC across the date line (Pacific/Auckland)", () => {
    // 25 November in Auckland (summer time, UTC+13) starts at 11:00 UTC on the 24th.
    const { from, to } = dayBounds("2026-11-25", "2026-11-25", "Pacific/Auckland");
    expect([from, to]).toEqual(["2026-11-24T11:00:00.000Z", "2026-11-25T10:59:59.999Z"]);
    expect([dayLabel(from!, "Pacific/Auckland"), dayLabel(to!, "Pacific/Auckland")]).toEqual([
      "25 Nov 2026",
      "25 Nov 2026",
    ]);
    // Printed in UTC, the first bound would read the day before.
    expect(dayLabel(from!, "UTC")).toBe("24 Nov 2026");
  });

  it("and behind UTC across a clock change (America/Los_Angeles, summer time ends on 1 November 2026)", () => {
    const { from, to } = dayBounds("2026-10-31", "2026-11-01", "America/Los_Angeles");
    // 31 October starts at UTC-7, and 1 November (25 hours long) ends at UTC-8.
    expect([from, to]).toEqual(["2026-10-31T07:00:00.000Z", "2026-11-02T07:59:59.999Z"]);
    expect([dayLabel(from!, "America/Los_Angeles"), dayLabel(to!, "America/Los_Angeles")]).toEqual([
      "31 Oct 2026",
      "1 Nov 2026",
    ]);
    expect(dayLabel(to!, "UTC")).toBe("2 Nov 2026");
  });

  it("for every zone and day, the bounds of a day print as that day", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(
          "UTC",
          "Pacific/Auckland",
          "Pacific/Kiritimati",
          "America/Los_Angeles",
          "America/Santiago",
          "Asia/Kolkata",
        ),
        fc.date({ min: new Date("1990-01-01T00:00:00Z"), max: new Date("2060-12-31T00:00:00Z"), noInvalidDate: true }),
        (zone, date) => {
          const day = date.toISOString().slice(0, 10);
          const { from, to } = dayBounds(day, day, zone);
          const printed = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeZone: "UTC" }).format(
            new Date(`${day}T00:00:00Z`),
          );
          expect(dayLabel(from!, zone)).toBe(printed);
          expect(dayLabel(to!, zone)).toBe(printed);
        },
      ),
    );
  });

  it("reads an unknown zone as UTC rather than throwing (a page prints before the settings load)", () => {
    expect(dayLabel("2026-11-25T23:30:00Z", "Mars/Olympus")).toBe("25 Nov 2026");
  });
});

describe("offsetLabel and timeZoneNames: the settings page's choice of zone", () => {
  it("prints the offset of the instant given, across a clock change and off the hour", () => {
    expect(offsetLabel("UTC")).toBe("UTC+00:00");
    expect(offsetLabel("Pacific/Auckland", new Date("2026-11-25T00:00:00Z"))).toBe("UTC+13:00");
    expect(offsetLabel("Pacific/Auckland", new Date("2026-06-15T00:00:00Z"))).toBe("UTC+12:00");
    expect(offsetLabel("America/Los_Angeles", new Date("2026-10-31T12:00:00Z"))).toBe("UTC-07:00");
    expect(offsetLabel("America/Los_Angeles", new Date("2026-11-02T12:00:00Z"))).toBe("UTC-08:00");
    expect(offsetLabel("Asia/Kolkata", new Date("2026-11-25T00:00:00Z"))).toBe("UTC+05:30");
  });

  it("lists UTC first and once, and only zones the API accepts", () => {
    const names = timeZoneNames();
    expect(names[0]).toBe("UTC");
    expect(names.filter((name) => name === "UTC")).toHaveLength(1);
    expect(names).toEqual(expect.arrayContaining(["Pacific/Auckland", "America/Los_Angeles", "Europe/Paris"]));
    expect(names.filter((name) => canonicalTimeZone(name) === undefined)).toEqual([]);
  });
});
