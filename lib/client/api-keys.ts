/** Typed react-query hooks of the API keys, bound to the operations of lib/resources/api-keys/contract.ts. */
import type { CreateApiKeyInput } from "@/lib/resources/api-keys/contract";
import * as apiKeys from "@/lib/resources/api-keys/contract";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { request } from "./api";

/** The cache keys of API keys: every page starts with `"api-keys"`, refreshed at once after a change. */
const apiKeyKeys = {
  all: ["api-keys"] as const,
  list: (query: { page: number; limit: number }) => ["api-keys", query] as const,
};

export function useApiKeys(query: { page: number; limit: number }) {
  return useQuery({
    queryKey: apiKeyKeys.list(query),
    queryFn: ({ signal }) => request(apiKeys.list, { query: { ...query, count: true }, signal }),
    placeholderData: keepPreviousData,
    staleTime: 0,
  });
}

export function useCreateApiKey() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateApiKeyInput) => request(apiKeys.create, { body }),
    onSuccess: () => client.invalidateQueries({ queryKey: apiKeyKeys.all }),
  });
}

export function useRevokeApiKey() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => request(apiKeys.revoke, { params: { id } }),
    onSuccess: () => client.invalidateQueries({ queryKey: apiKeyKeys.all }),
  });
}
