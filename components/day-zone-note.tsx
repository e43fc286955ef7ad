"use client";

import { useDayZone } from "@/lib/client/company";

/** Beside every date filter: the zone its days are in, the company's (docs/api.md#days). */
export function DayZoneNote({ className = "" }: { className?: string }) {
  const zone = useDayZone();
  return (
    <p className={`text-xs text-slate-600 ${className}`} data-testid="day-zone">
      Days are in {zone}.
    </p>
  );
}
