"use client";

/**
 * The webhooks page: the company's webhooks (URL, events, state, created) on the data table, and
 * the page of a new one, whose signing secret is shown once after it is created.
 */
import { DataTable, ListTotal, type DataColumn } from "@/components/ui/data-table";
import { focusHeadingAfterNavigation } from "@/lib/client/feedback";
import { useViewSearch } from "@/lib/client/use-view-search";
import { useWebhooks } from "@/lib/client/webhooks";
import type { WebhookRecord, WebhookWithSecret } from "@/lib/resources/webhooks/contract";
import { useRouter, useSearchParams } from "next/navigation";
import { useState } from "react";
import { useIsAdmin } from "../admin-shell";
import { Pagination } from "../pagination";
import { ShownOnce } from "../shown-once";
import { ActiveBadge, BackLink, Badge, Card, DateTime, LinkButton, ListView, PageHeader } from "../ui";
import { WebhookForm } from "./webhook-form";

const PAGE_SIZE = 20;
/** Filters shown in a row of the list before "+N more". */
const EVENTS_SHOWN = 3;

const webhookId = (webhook: WebhookRecord) => webhook._id;
const webhookHref = (webhook: WebhookRecord) => `/webhooks/${webhook._id}`;
const webhookUrl = (webhook: WebhookRecord) => <span className="font-mono text-xs">{webhook.url}</span>;

/** A webhook's event filters as badges, the first few only when `limit` is given. */
export function EventFilters({ events, limit }: { events: readonly string[]; limit?: number }) {
  const shown = limit === undefined ? events : events.slice(0, limit);
  return (
    <span className="flex flex-wrap gap-1">
      {shown.map((filter) => (
        <Badge key={filter} tone={filter.endsWith(".*") ? "violet" : "blue"}>
          {filter}
        </Badge>
      ))}
      {events.length > shown.length && <Badge>+{events.length - shown.length} more</Badge>}
    </span>
  );
}

const columns: DataColumn<WebhookRecord>[] = [
  { id: "url", header: "Endpoint URL", cell: webhookUrl },
  {
    id: "events",
    header: "Events",
    cell: (webhook) => <EventFilters events={webhook.events} limit={EVENTS_SHOWN} />,
    className: "max-w-96",
  },
  { id: "isActive", header: "State", cell: (webhook) => <ActiveBadge active={webhook.isActive} /> },
  {
    id: "description",
    header: "Description",
    cell: (webhook) => webhook.description ?? <span className="text-slate-500">—</span>,
    className: "max-w-72 truncate",
  },
  {
    id: "createdAt",
    header: "Created",
    cell: (webhook) => <DateTime value={webhook.createdAt} />,
    className: "whitespace-nowrap",
  },
];

export function WebhooksPage() {
  const { params, show } = useViewSearch();
  const page = Math.max(1, Number(params.get("page")) || 1);
  const webhooks = useWebhooks({ page, limit: PAGE_SIZE });
  const isAdmin = useIsAdmin();
  const body = webhooks.data?.data;
  const create = isAdmin !== false && (
    <LinkButton kind="primary" href="/webhooks/new">
      New webhook
    </LinkButton>
  );
  const actions = (
    <>
      <LinkButton href="/webhooks/receiver">Test receiver</LinkButton>
      {create}
    </>
  );

  return (
    <>
      <PageHeader
        title="Webhooks"
        subtitle="This company's changes, POSTed to other systems as they happen and signed."
        actions={actions}
      />
      <ListView
        query={webhooks}
        rows={body?.webhooks}
        loading="Loading the webhooks…"
        error="The webhooks could not be loaded"
        empty={{
          title: "No webhooks yet",
          children: (
            <>
              <p>
                Add one to have changes of users, surveys and reference data POSTed to your own server as they happen,
                instead of asking the API for them.
              </p>
              <p className="mt-2">
                No server to receive them yet? The built-in test receiver shows what a webhook delivers.
              </p>
              {create && <div className="mt-4">{create}</div>}
            </>
          ),
        }}
      >
        {() =>
          body && (
            <Card className="overflow-hidden">
              <DataTable
                name="webhooks"
                caption="Webhooks, newest first"
                rows={body.webhooks}
                columns={columns}
                rowId={webhookId}
                rowHref={webhookHref}
                rowLabel={webhookUrl}
                toolbar={
                  <ListTotal
                    total={body.counter ?? body.webhooks.length}
                    noun={["webhook", "webhooks"]}
                    fetching={webhooks.isFetching}
                    refreshing={false}
                  />
                }
              />
              <Pagination
                page={page}
                limit={PAGE_SIZE}
                total={body.counter}
                shown={body.webhooks.length}
                noun={["webhook", "webhooks"]}
                onPage={(next) => show(next > 1 ? `/webhooks?page=${next}` : "/webhooks")}
              />
            </Card>
          )
        }
      </ListView>
    </>
  );
}

export function NewWebhookPage() {
  const router = useRouter();
  // The test receiver's "New webhook to this address" names it in the URL.
  const initialUrl = useSearchParams().get("url") ?? "";
  const [created, setCreated] = useState<WebhookWithSecret>();

  return (
    <div className="mx-auto max-w-4xl">
      <PageHeader
        title="New webhook"
        subtitle="Checked as you save: the address must be reachable on the public internet."
        back={<BackLink href="/webhooks">Webhooks</BackLink>}
      />
      {created ? (
        <ShownOnce
          id="webhook-secret"
          title="The webhook's signing secret"
          warning="Copy it now: you will not see it again. Rotating the secret later gives a new one."
          label="Signing secret"
          noun="secret"
          value={created.secret ?? ""}
          onDone={() => {
            focusHeadingAfterNavigation();
            router.push(`/webhooks/${created._id}`);
          }}
        >
          <SigningHint />
        </ShownOnce>
      ) : (
        <WebhookForm onCreated={setCreated} initialUrl={initialUrl} />
      )}
    </div>
  );
}

/** How a receiver checks a delivery, said wherever a secret is shown. */
export function SigningHint() {
  return (
    <>
      Each delivery carries <code className="font-mono text-xs">webhook-id</code>,{" "}
      <code className="font-mono text-xs">webhook-timestamp</code> and{" "}
      <code className="font-mono text-xs">webhook-signature</code> headers, as the Standard Webhooks specification says:
      check them with its libraries and this secret.
    </>
  );
}
