/** Typed react-query hooks of the webhooks (`/v2/webhooks`) and their delivery logs. */
import { keepPreviousData, useInfiniteQuery, useMutation, useMutationState, useQuery, useQueryClient } from "@tanstack/react-query";
import type { CreateWebhookInput, DeliveryList, DeliveryRecord, UpdateWebhookInput, WebhookList, WebhookRecord, WebhookWithSecret } from "@/lib/webhooks/contract";
import { api } from "./api";

const PATH = "/v2/webhooks";
/** How often the delivery log is read again while one of its attempts is still pending. */
const PENDING_POLL_MS = 1000;
const DELIVERIES_PAGE = 20;

/** The record of an answer that carried the secret: the cache keeps no secret. */
function withoutSecret(answer: WebhookWithSecret): WebhookRecord {
  const record = { ...answer };
  delete record.secret;
  return record;
}

const recordKey = (id: string) => ["webhooks", "record", id] as const;
const deliveriesKey = (id: string) => ["webhooks", "deliveries", id] as const;
const removeKey = (id: string) => ["webhooks", "remove", id] as const;

export function useWebhooks(query: { page: number; limit: number }) {
  return useQuery({
    queryKey: ["webhooks", "page", query],
    queryFn: ({ signal }) => api<WebhookList>(PATH, { query: { ...query, count: true }, signal }),
    placeholderData: keepPreviousData,
    staleTime: 0,
  });
}

export function useWebhook(id: string) {
  return useQuery({ queryKey: recordKey(id), queryFn: ({ signal }) => api<WebhookRecord>(`${PATH}/${id}`, { signal }) });
}

/** The delivery log, newest first, a page at a time by cursor; read again each second while an attempt is pending. */
export function useDeliveries(id: string) {
  // From the moment the webhook is being deleted its log is not read again: it would answer 404 while the page leaves.
  const removing = useMutationState({ filters: { mutationKey: removeKey(id) }, select: (mutation) => mutation.state.status }).some((status) => status === "pending" || status === "success");
  return useInfiniteQuery({
    queryKey: deliveriesKey(id),
    enabled: !removing,
    queryFn: ({ signal, pageParam }) => api<DeliveryList>(`${PATH}/${id}/deliveries`, { query: { limit: DELIVERIES_PAGE, cursor: pageParam, count: pageParam === undefined || undefined }, signal }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.data.next ?? undefined,
    refetchInterval: (query) => (query.state.data?.pages.some((page) => page.data.deliveries.some((delivery) => delivery.status === "pending")) ? PENDING_POLL_MS : false),
  });
}

export function useCreateWebhook() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateWebhookInput) => api<WebhookWithSecret>(PATH, { method: "POST", body }),
    onSuccess: (created) => {
      client.setQueryData(recordKey(created._id), withoutSecret(created));
      return client.invalidateQueries({ queryKey: ["webhooks", "page"] });
    },
  });
}

/** The mutations of one webhook; each leaves its record and the lists as the server now has them. */
export function useWebhookActions(id: string) {
  const client = useQueryClient();
  const keep = (record: WebhookRecord) => {
    client.setQueryData(recordKey(id), record);
    return client.invalidateQueries({ queryKey: ["webhooks", "page"] });
  };
  const logChanged = () => client.invalidateQueries({ queryKey: deliveriesKey(id) });
  return {
    update: useMutation({ mutationFn: (body: UpdateWebhookInput) => api<WebhookRecord>(`${PATH}/${id}`, { method: "PATCH", body }), onSuccess: keep }),
    rotate: useMutation({
      mutationFn: () => api<WebhookWithSecret>(`${PATH}/${id}/rotate-secret`, { method: "POST" }),
      onSuccess: (rotated) => keep(withoutSecret(rotated)),
    }),
    test: useMutation({ mutationFn: () => api<DeliveryRecord>(`${PATH}/${id}/test`, { method: "POST" }), onSuccess: logChanged }),
    retry: useMutation({ mutationFn: (deliveryId: string) => api<DeliveryRecord>(`${PATH}/${id}/deliveries/${deliveryId}/retry`, { method: "POST" }), onSuccess: logChanged }),
    remove: useMutation({
      mutationKey: removeKey(id),
      // A read of the log already on its way is stopped too.
      onMutate: () => client.cancelQueries({ queryKey: deliveriesKey(id) }),
      mutationFn: () => api<void>(`${PATH}/${id}`, { method: "DELETE" }),
      // The page leaves for the list: its own queries, still observed until then, are left alone (removed, they would be read again and answer 404).
      onSuccess: () => client.invalidateQueries({ queryKey: ["webhooks", "page"] }),
    }),
  };
}
