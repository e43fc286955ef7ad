/** The caller's company's settings, bound to lib/resources/companies/contract.ts: the zone of every day (docs/api.md#days). */
import { DEFAULT_TIME_ZONE } from "@/lib/base/shared/days";
import * as company from "@/lib/resources/companies/contract";
import { useQuery } from "@tanstack/react-query";
import { request } from "./api";

const companyKeys = { settings: ["company"] as const };

/**
 * The zone the company's days are in; UTC until the settings have loaded (a list's query holds
 * the zone, so it is read again if the company's differs).
 */
export function useDayZone(): string {
  const settings = useQuery({
    queryKey: companyKeys.settings,
    queryFn: ({ signal }) => request(company.read, { signal }),
    staleTime: 5 * 60_000,
  });
  return settings.data?.timeZone ?? DEFAULT_TIME_ZONE;
}
