/** Reference data for the pickers and for showing names in place of ids. */
import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import type { AccessRoleRecord, BotRecord, JobTitleRecord, PropertyRecord } from "@/lib/schemas/reference";
import { api } from "./api";

interface ReferenceKinds {
  accessRoles: AccessRoleRecord;
  jobTitles: JobTitleRecord;
  properties: PropertyRecord;
  bots: BotRecord;
}
export type ReferenceKind = keyof ReferenceKinds;

const PATHS: Record<ReferenceKind, string> = {
  accessRoles: "/v2/access-roles",
  jobTitles: "/v2/job-titles",
  properties: "/v2/properties",
  bots: "/v2/bots",
};

/** The largest page the reference routes give: a company's whole list in one request. */
const ALL = 1000;

export function useReference<K extends ReferenceKind>(kind: K) {
  return useQuery({
    queryKey: ["reference", kind],
    queryFn: async ({ signal }) => {
      const body = await api<{ data: Record<K, ReferenceKinds[K][]> }>(PATHS[kind], { query: { limit: ALL }, signal });
      return body.data[kind];
    },
    staleTime: 5 * 60_000,
  });
}

/** id → name of one kind; ids not (yet) known map to undefined. */
export function useReferenceNames(kind: ReferenceKind): Map<string, string> {
  const { data } = useReference(kind);
  return useMemo(() => new Map((data ?? []).map((record) => [record._id, record.name])), [data]);
}
