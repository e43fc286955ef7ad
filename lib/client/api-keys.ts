/** Typed react-query hooks of the API keys (`/v2/api-keys`). */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { ApiKeyList, CreateApiKeyInput, CreatedApiKey } from "@/lib/api-keys/contract";
import { api } from "./api";

export function useApiKeys(query: { page: number; limit: number }) {
  return useQuery({
    queryKey: ["api-keys", query],
    queryFn: ({ signal }) => api<ApiKeyList>("/v2/api-keys", { query: { ...query, count: true }, signal }),
    placeholderData: keepPreviousData,
    staleTime: 0,
  });
}

export function useCreateApiKey() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateApiKeyInput) => api<CreatedApiKey>("/v2/api-keys", { method: "POST", body }),
    onSuccess: () => client.invalidateQueries({ queryKey: ["api-keys"] }),
  });
}

export function useRevokeApiKey() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<void>(`/v2/api-keys/${id}`, { method: "DELETE" }),
    onSuccess: () => client.invalidateQueries({ queryKey: ["api-keys"] }),
  });
}
