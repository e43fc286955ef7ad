/** Typed react-query hooks of the webhooks and their delivery logs (lib/resources/webhooks/contract.ts). */
import type {
  CreateWebhookInput,
  UpdateWebhookInput,
  WebhookRecord,
  WebhookWithSecret,
} from "@/lib/resources/webhooks/contract";
import * as webhooks from "@/lib/resources/webhooks/contract";
import {
  keepPreviousData,
  useInfiniteQuery,
  useMutation,
  useMutationState,
  useQuery,
  useQueryClient,
} from "@tanstack/react-query";
import { request } from "./api";

/** How often the delivery log is read again while one of its attempts is still pending. */
const PENDING_POLL_MS = 1000;
const DELIVERIES_PAGE = 20;

/** The record of an answer that carried the secret: the cache keeps no secret. */
function withoutSecret(answer: WebhookWithSecret): WebhookRecord {
  const record = { ...answer };
  delete record.secret;
  return record;
}

/** The cache keys of webhooks: their pages (`lists`), a record, its delivery log, and the mutation that deletes it. */
const webhookKeys = {
  lists: ["webhooks", "page"] as const,
  list: (query: { page: number; limit: number }) => ["webhooks", "page", query] as const,
  detail: (id: string) => ["webhooks", "record", id] as const,
  deliveries: (id: string) => ["webhooks", "deliveries", id] as const,
  remove: (id: string) => ["webhooks", "remove", id] as const,
  receiver: ["webhooks", "receiver"] as const,
};

export function useWebhooks(query: { page: number; limit: number }) {
  return useQuery({
    queryKey: webhookKeys.list(query),
    queryFn: ({ signal }) => request(webhooks.list, { query: { ...query, count: true }, signal }),
    placeholderData: keepPreviousData,
    staleTime: 0,
  });
}

export function useWebhook(id: string) {
  return useQuery({
    queryKey: webhookKeys.detail(id),
    queryFn: ({ signal }) => request(webhooks.read, { params: { id }, signal }),
  });
}

/** The delivery log, newest first, a page at a time by cursor; read again each second while an attempt is pending. */
export function useDeliveries(id: string) {
  // From the moment the webhook is being deleted its log is not read again: it would answer 404 while the page leaves.
  const removing = useMutationState({
    filters: { mutationKey: webhookKeys.remove(id) },
    select: (mutation) => mutation.state.status,
  }).some((status) => status === "pending" || status === "success");
  return useInfiniteQuery({
    queryKey: webhookKeys.deliveries(id),
    enabled: !removing,
    queryFn: ({ signal, pageParam }) =>
      request(webhooks.deliveries, {
        params: { id },
        query: { limit: DELIVERIES_PAGE, cursor: pageParam, count: pageParam === undefined || undefined },
        signal,
      }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.data.next ?? undefined,
    refetchInterval: (query) =>
      query.state.data?.pages.some((page) => page.data.deliveries.some((delivery) => delivery.status === "pending"))
        ? PENDING_POLL_MS
        : false,
  });
}

export function useCreateWebhook() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateWebhookInput) => request(webhooks.create, { body }),
    onSuccess: (created) => {
      client.setQueryData(webhookKeys.detail(created._id), withoutSecret(created));
      return client.invalidateQueries({ queryKey: webhookKeys.lists });
    },
  });
}

/** The mutations of one webhook; each leaves its record and the lists as the server now has them. */
export function useWebhookActions(id: string) {
  const client = useQueryClient();
  const keep = (record: WebhookRecord) => {
    client.setQueryData(webhookKeys.detail(id), record);
    return client.invalidateQueries({ queryKey: webhookKeys.lists });
  };
  const logChanged = () => client.invalidateQueries({ queryKey: webhookKeys.deliveries(id) });
  return {
    update: useMutation({
      mutationFn: (body: UpdateWebhookInput) => request(webhooks.update, { params: { id }, body }),
      onSuccess: keep,
    }),
    rotate: useMutation({
      mutationFn: () => request(webhooks.rotateSecret, { params: { id } }),
      onSuccess: (rotated) => keep(withoutSecret(rotated)),
    }),
    test: useMutation({ mutationFn: () => request(webhooks.test, { params: { id } }), onSuccess: logChanged }),
    retry: useMutation({
      mutationFn: (deliveryId: string) => request(webhooks.retry, { params: { id, deliveryId } }),
      onSuccess: logChanged,
    }),
    remove: useMutation({
      mutationKey: webhookKeys.remove(id),
      // A read of the log already on its way is stopped too.
      onMutate: () => client.cancelQueries({ queryKey: webhookKeys.deliveries(id) }),
      mutationFn: () => request(webhooks.remove, { params: { id } }),
      // The page leaves for the list: its own queries, still observed until then, are left alone (removed, they would be read again and answer 404).
      onSuccess: () => client.invalidateQueries({ queryKey: webhookKeys.lists }),
    }),
  };
}

/** How often the test receiver's page reads what arrived. */
const RECEIVER_POLL_MS = 2000;

/** The company's test receiver: its URL and what it kept, read again every 2 s while the page is open. */
export function useReceiver() {
  return useQuery({
    queryKey: webhookKeys.receiver,
    queryFn: ({ signal }) => request(webhooks.receiver, { signal }),
    refetchInterval: RECEIVER_POLL_MS,
  });
}

export function useClearReceiver() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => request(webhooks.clearReceiver, {}),
    onSuccess: () => client.invalidateQueries({ queryKey: webhookKeys.receiver }),
  });
}
