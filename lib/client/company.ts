/** The caller's company's settings, bound to lib/resources/companies/contract.ts: the zone of every day (docs/api.md#days). */
import { DEFAULT_TIME_ZONE } from "@/lib/base/shared/days";
import * as company from "@/lib/resources/companies/contract";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { request } from "./api";

const companyKeys = { settings: ["company"] as const };

/** The company's settings: its name and the zone its days are in. */
export function useCompanySettings() {
  return useQuery({
    queryKey: companyKeys.settings,
    queryFn: ({ signal }) => request(company.read, { signal }),
    staleTime: 5 * 60_000,
  });
}

/**
 * The zone the company's days are in; UTC until the settings have loaded (a list's query holds
 * the zone, so it is read again if the company's differs).
 */
export function useDayZone(): string {
  return useCompanySettings().data?.timeZone ?? DEFAULT_TIME_ZONE;
}

/**
 * Changes the company's settings (admins). The answer is the new settings: every page reading
 * the zone shows it at once, and the lists whose queries hold day bounds read again.
 */
export function useUpdateCompany() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: company.UpdateCompanyBody) => request(company.update, { body }),
    onSuccess: (settings) => client.setQueryData(companyKeys.settings, settings),
  });
}
