/** Typed react-query hook of the outbox (`/v2/outbox`). */
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import type { OutboxList } from "@/lib/schemas/outbox";
import { api } from "./api";

export function useOutbox(query: { page: number; limit: number; to?: string }) {
  return useQuery({
    queryKey: ["outbox", query],
    queryFn: ({ signal }) => api<OutboxList>("/v2/outbox", { query: { ...query, count: true }, signal }),
    placeholderData: keepPreviousData,
    staleTime: 0,
  });
}
