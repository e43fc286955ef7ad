/** Typed react-query hook of the outbox, bound to the operation of lib/resources/mail/contract.ts. */
import * as outbox from "@/lib/resources/mail/contract";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { request } from "./api";

type OutboxQuery = { page: number; limit: number; to?: string };

/** The cache keys of the outbox: one per page and filter. */
const outboxKeys = {
  all: ["outbox"] as const,
  list: (query: OutboxQuery) => ["outbox", query] as const,
};

export function useOutbox(query: OutboxQuery) {
  return useQuery({
    queryKey: outboxKeys.list(query),
    queryFn: ({ signal }) => request(outbox.list, { query: { ...query, count: true }, signal }),
    placeholderData: keepPreviousData,
    staleTime: 0,
  });
}
