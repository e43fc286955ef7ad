/**
 * One meaning of a day (docs/api.md#days): a date filter's `YYYY-MM-DD` is that calendar day in
 * one stated time zone, the company's `timeZone` (UTC unless set), on every page and in the
 * server alike. Zones are IANA names, resolved by `Intl` (no table of our own), so daylight-saving
 * changes and zones far from UTC (Pacific/Auckland, UTC+13 in summer) fall on the right instants.
 */

/** The zone of a company that has not chosen one. */
export const DEFAULT_TIME_ZONE = "UTC";

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Whether `text` is a real calendar day written `YYYY-MM-DD`. */
export function isDay(text: string): boolean {
  const match = DAY.exec(text);
  if (!match) return false;
  const [year, month, day] = match.slice(1).map(Number);
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** The IANA name `Intl` knows `name` by (`utc` → `UTC`), or `undefined` when it is no time zone. */
export function canonicalTimeZone(name: string): string | undefined {
  if (name.length === 0 || name.length > 64 || !/^[A-Za-z0-9_+\-/]+$/.test(name)) return undefined;
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

const formats = new Map<string, Intl.DateTimeFormat>();

function formatOf(zone: string): Intl.DateTimeFormat {
  let format = formats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formats.set(zone, format);
  }
  return format;
}

/** The wall clock of `instant` in `zone`, as if it were UTC (milliseconds dropped). */
function wallClock(instant: number, zone: string): { ms: number; day: string } {
  const parts = Object.fromEntries(
    formatOf(zone)
      .formatToParts(new Date(instant))
      .map((part) => [part.type, part.value]),
  );
  const ms = Date.UTC(
    Number(parts.year),
    Number(parts.month) - 1,
    Number(parts.day),
    Number(parts.hour),
    Number(parts.minute),
    Number(parts.second),
  );
  return { ms, day: `${parts.year}-${parts.month}-${parts.day}` };
}

/** How far `zone`'s clock is ahead of UTC at `instant`, in milliseconds. */
const offsetAt = (instant: number, zone: string): number =>
  wallClock(instant - (instant % 1000), zone).ms - (instant - (instant % 1000));

/**
 * The first instant of `day` in `zone`. Midnight is tried at the offsets on either side of it; on
 * a day whose midnight the clocks skip (America/Santiago in September) the day starts when they
 * land after the gap.
 */
function startOf(day: string, zone: string): number {
  const [year, month, date] = DAY.exec(day)!.slice(1).map(Number);
  const wall = Date.UTC(year, month - 1, date);
  const first = wall - offsetAt(wall, zone);
  const candidates = [first, wall - offsetAt(first, zone)];
  const inDay = candidates.filter((instant) => wallClock(instant, zone).day === day);
  return inDay.length > 0 ? Math.min(...inDay) : Math.max(...candidates);
}

/** The day after `day` (`2026-12-31` → `2027-01-01`). */
export function nextDay(day: string): string {
  const [year, month, date] = DAY.exec(day)!.slice(1).map(Number);
  return new Date(Date.UTC(year, month - 1, date + 1)).toISOString().slice(0, 10);
}

/**
 * The calendar day `day` (`YYYY-MM-DD`) in the IANA zone `zone` as the instants `[start, end)`:
 * from its first millisecond to the first of the next day. A day is 23 or 25 hours long when the
 * clocks change. Throws on a malformed day or an unknown zone (callers validate both first).
 */
export function dayRange(day: string, zone: string): { start: Date; end: Date } {
  if (!isDay(day)) throw new RangeError(`not a day: ${day}`);
  const known = canonicalTimeZone(zone);
  if (!known) throw new RangeError(`not a time zone: ${zone}`);
  return { start: new Date(startOf(day, known)), end: new Date(startOf(nextDay(day), known)) };
}

/** The day (`YYYY-MM-DD`) that `instant` falls on in `zone`. */
export function dayOf(instant: Date, zone: string): string {
  return wallClock(instant.getTime(), zone).day;
}

/**
 * The inclusive bounds of the days `from` to `to` in `zone`, as the API's ISO date-times: the
 * first millisecond of `from` and the last of `to`; a missing or malformed day gives no bound.
 * Every date filter of the admin pages sends its days through this (docs/api.md#days).
 */
export function dayBounds(
  from: string | undefined,
  to: string | undefined,
  zone: string,
): { from?: string; to?: string } {
  const known = canonicalTimeZone(zone) ?? DEFAULT_TIME_ZONE;
  return {
    ...(from && isDay(from) ? { from: dayRange(from, known).start.toISOString() } : {}),
    ...(to && isDay(to) ? { to: new Date(dayRange(to, known).end.getTime() - 1).toISOString() } : {}),
  };
}

const labels = new Map<string, Intl.DateTimeFormat>();

/**
 * The day `instant` falls on in `zone`, as the pages print a day ("25 Nov 2026"): the same day
 * {@link dayRange} and {@link dayBounds} mean, so the last millisecond of "25 November" in
 * Los Angeles (08:00 UTC on the 26th) reads "25 Nov 2026", not the day UTC is on.
 */
export function dayLabel(instant: Date | string, zone: string): string {
  const known = canonicalTimeZone(zone) ?? DEFAULT_TIME_ZONE;
  let format = labels.get(known);
  if (!format) {
    format = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeZone: known });
    labels.set(known, format);
  }
  return format.format(new Date(instant));
}

/** How `zone`'s clock stands against UTC at `instant`, as the settings page shows it: `UTC+13:00`, `UTC-07:00`, `UTC+05:30`. */
export function offsetLabel(zone: string, instant: Date = new Date()): string {
  const minutes = Math.round(offsetAt(instant.getTime(), canonicalTimeZone(zone) ?? DEFAULT_TIME_ZONE) / 60_000);
  const whole = Math.abs(minutes);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `UTC${minutes < 0 ? "-" : "+"}${pad(Math.floor(whole / 60))}:${pad(whole % 60)}`;
}

/** Every IANA zone this runtime's `Intl` knows, `UTC` first (some runtimes leave it out of the list). */
export function timeZoneNames(): string[] {
  const names = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
  return [DEFAULT_TIME_ZONE, ...names.filter((name) => name !== DEFAULT_TIME_ZONE)];
}
