"use client";

/**
 * A webhook's delivery log on the data table, newest first (older pages on request), each entry
 * with a Redeliver button; a row opens the entry's details (its event and error) below the table.
 */
import { DataTable, ListTotal, type DataColumn } from "@/components/ui/data-table";
import { useToast } from "@/components/ui/toast";
import { useDeliveries, useWebhookActions } from "@/lib/client/webhooks";
import type { DeliveryRecord } from "@/lib/resources/webhooks/contract";
import { useSearchParams } from "next/navigation";
import { useCallback, useEffect, useRef, useState } from "react";
import { Badge, Button, Card, DateTime, Facts, ListView, Spinner } from "../ui";

/** Seconds matter in a log where several attempts happen in the same minute. */
const timeFormat = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "medium" });
const when = (value: string) => timeFormat.format(new Date(value));

const STATUS = {
  succeeded: { label: "Succeeded", tone: "green" },
  failed: { label: "Failed", tone: "red" },
  pending: { label: "Pending", tone: "blue" },
} as const;

function Status({ delivery }: { delivery: DeliveryRecord }) {
  const { label, tone } = STATUS[delivery.status];
  return <Badge tone={tone}>{label}</Badge>;
}

const none = <span className="text-slate-500">—</span>;
const duration = (delivery: DeliveryRecord) =>
  delivery.durationMs === null ? none : `${delivery.durationMs.toLocaleString("en")} ms`;
const response = (delivery: DeliveryRecord) =>
  delivery.responseStatus === null ? none : <code className="font-mono text-xs">{delivery.responseStatus}</code>;

/**
 * Says in a toast how the deliveries a page queued (a test, a redelivery) turned out, once the
 * log, read again while they are pending, shows them made. `watch(id, label)` starts following one.
 */
export function useOutcomeToasts(webhookId: string) {
  const deliveries = useDeliveries(webhookId);
  const toast = useToast();
  /** By delivery id: the words of its outcome, and the toast that said it was queued (replaced by the outcome). */
  const watched = useRef(new Map<string, { label: string; queued: number }>());
  // A delivery may be made before `watch` is called: a new watch looks at the log as it is too.
  const [watches, setWatches] = useState(0);

  useEffect(() => {
    for (const delivery of deliveries.data?.pages.flatMap((page) => page.data.deliveries) ?? []) {
      const watch = watched.current.get(delivery._id);
      if (watch === undefined || delivery.status === "pending") continue;
      watched.current.delete(delivery._id);
      toast.dismiss(watch.queued);
      const { label } = watch;
      if (delivery.status === "succeeded")
        toast.show({
          message: `${label} succeeded: the receiver answered ${delivery.responseStatus} in ${delivery.durationMs} ms.`,
        });
      else toast.show({ message: `${label} failed: ${delivery.error ?? "no answer"}.`, tone: "error" });
    }
  }, [deliveries.data, watches, toast]);

  return useCallback(
    (deliveryId: string, label: string, queued: string) => {
      watched.current.set(deliveryId, { label, queued: toast.show({ message: queued, tone: "info" }) });
      setWatches((count) => count + 1);
    },
    [toast],
  );
}

export function DeliveryLog({
  webhookId,
  canRedeliver,
  watch,
}: {
  webhookId: string;
  canRedeliver: boolean;
  watch: ReturnType<typeof useOutcomeToasts>;
}) {
  const params = useSearchParams();
  const opened = params.get("delivery");
  const deliveries = useDeliveries(webhookId);
  const { retry } = useWebhookActions(webhookId);
  const toast = useToast();
  const rows = deliveries.data?.pages.flatMap((page) => page.data.deliveries) ?? [];
  const total = deliveries.data?.pages[0]?.data.counter;
  const selected = rows.find((delivery) => delivery._id === opened);
  const href = useCallback(
    (delivery: DeliveryRecord) => `/webhooks/${webhookId}?delivery=${delivery._id}`,
    [webhookId],
  );

  async function redeliver(delivery: DeliveryRecord) {
    try {
      const queued = await retry.mutateAsync(delivery._id);
      watch(
        queued._id,
        "The redelivery",
        `Redelivery of the event of ${when(delivery.createdAt)} queued: its outcome appears at the top of the log.`,
      );
    } catch (error) {
      toast.show({
        message: `The event was not redelivered: ${error instanceof Error ? error.message : "unknown error"}`,
        tone: "error",
      });
    }
  }

  const columns: DataColumn<DeliveryRecord>[] = [
    {
      id: "createdAt",
      header: "Created",
      cell: (delivery) => when(delivery.createdAt),
      className: "whitespace-nowrap",
    },
    { id: "status", header: "Status", cell: (delivery) => <Status delivery={delivery} /> },
    { id: "responseStatus", header: "Response", cell: response },
    { id: "durationMs", header: "Duration", cell: duration, className: "whitespace-nowrap" },
    { id: "attempt", header: "Attempt", cell: (delivery) => delivery.attempt },
    {
      id: "nextAttemptAt",
      header: "Next attempt",
      cell: (delivery) => <DateTime value={delivery.nextAttemptAt} />,
      className: "whitespace-nowrap",
    },
    // A cell's max-width does not bind a table's auto layout; the block inside it does, and the whole text is in the row's details.
    {
      id: "error",
      header: "Error",
      cell: (delivery) =>
        delivery.error ? (
          <span className="block max-w-48 truncate" title={delivery.error}>
            {delivery.error}
          </span>
        ) : (
          none
        ),
    },
    {
      id: "eventId",
      header: "Event",
      cell: (delivery) => <code className="font-mono text-xs">{delivery.eventId}</code>,
      hiddenByDefault: true,
    },
    ...(canRedeliver
      ? [
          {
            id: "redeliver",
            header: "Redeliver",
            headerHidden: true,
            hideable: false,
            cell: (delivery: DeliveryRecord) => (
              <Button
                className="px-2 py-1 text-xs"
                onClick={() => redeliver(delivery)}
                disabled={retry.isPending || delivery.status === "pending"}
                aria-label={`Redeliver the event of ${when(delivery.createdAt)}`}
              >
                Redeliver
              </Button>
            ),
          },
        ]
      : []),
  ];

  return (
    <Card className="overflow-hidden" aria-labelledby="delivery-log">
      <h2 id="delivery-log" className="px-4 pt-4 text-base font-semibold text-slate-900 sm:px-5">
        Delivery log
      </h2>
      <p className="px-4 pb-3 text-sm text-slate-600 sm:px-5">
        Every attempt at delivering an event, newest first. One that fails is tried again later, with growing delays.
      </p>
      <ListView
        query={deliveries}
        rows={rows}
        loading="Loading the deliveries…"
        error="The deliveries could not be loaded"
        inCard
        empty={{
          title: "Nothing delivered yet",
          children:
            "Events of the chosen types appear here as they are sent. Send a test delivery to check that the receiver answers.",
        }}
      >
        {() => (
          <>
            <DataTable
              name="webhook-deliveries"
              caption="Deliveries, newest first"
              rows={rows}
              columns={columns}
              rowId={(delivery) => delivery._id}
              rowHref={href}
              rowLabel={(delivery) => when(delivery.createdAt)}
              rowClassName={(delivery) => (delivery._id === opened ? "bg-sky-50" : "")}
              toolbar={
                <>
                  <ListTotal
                    total={total ?? rows.length}
                    noun={["delivery", "deliveries"]}
                    fetching={deliveries.isFetching}
                    refreshing={deliveries.isFetching && !deliveries.isFetchingNextPage}
                  />
                  <Button
                    className="px-2 py-1 text-xs"
                    onClick={() => deliveries.refetch()}
                    disabled={deliveries.isFetching}
                  >
                    Refresh
                  </Button>
                </>
              }
            />
            {deliveries.hasNextPage && (
              <div className="border-t border-slate-200 px-4 py-3">
                <Button onClick={() => deliveries.fetchNextPage()} disabled={deliveries.isFetchingNextPage}>
                  {deliveries.isFetchingNextPage && <Spinner className="size-3.5" />} Show older deliveries
                </Button>
              </div>
            )}
          </>
        )}
      </ListView>
      {selected && (
        <div className="border-t border-slate-200 p-4 sm:p-5" aria-labelledby="delivery-details">
          <h3 id="delivery-details" className="mb-4 text-sm font-semibold text-slate-900">
            The delivery of {when(selected.createdAt)}
          </h3>
          <Facts
            items={[
              ["Status", <Status key="status" delivery={selected} />],
              [
                "Event id (webhook-id)",
                <code key="event" className="font-mono text-xs">
                  {selected.eventId}
                </code>,
              ],
              ["Response", response(selected)],
              ["Duration", duration(selected)],
              ["Attempt", String(selected.attempt)],
              ["Next attempt", <DateTime key="next" value={selected.nextAttemptAt} />],
              ["Error", selected.error ?? "None"],
            ]}
          />
        </div>
      )}
    </Card>
  );
}
