"use client";

/**
 * The test receiver page (docs/api.md#test-receiver): the company's own receiver URL, to point a
 * webhook at, and every request it received, newest first, with its headers, its body and whether
 * its signature matches the webhook's current secret. Read again every 2 s while open, so a test
 * delivery appears by itself.
 */
import { ConfirmDialog } from "@/components/ui/dialog";
import { ErrorState } from "@/components/ui/error-state";
import { useToast } from "@/components/ui/toast";
import { useClearReceiver, useReceiver } from "@/lib/client/webhooks";
import type { ReceiptRecord } from "@/lib/resources/webhooks/contract";
import { useState } from "react";
import { useIsAdmin } from "../admin-shell";
import { BackLink, Badge, Button, Card, DateTime, EmptyState, LinkButton, Loading, PageHeader } from "../ui";

const SIGNATURE_BADGES: Record<ReceiptRecord["signature"], { tone: "green" | "red" | "grey"; text: string }> = {
  valid: { tone: "green", text: "Signature valid" },
  invalid: { tone: "red", text: "Signature invalid" },
  unsigned: { tone: "grey", text: "Unsigned" },
};

/** The body as a person reads it: indented when it is JSON. */
function shownBody(receipt: ReceiptRecord): string {
  try {
    return JSON.stringify(JSON.parse(receipt.body), null, 2);
  } catch {
    return receipt.body;
  }
}

export function TestReceiverPage() {
  const receiver = useReceiver();
  const clear = useClearReceiver();
  const toast = useToast();
  const isAdmin = useIsAdmin();
  const [confirming, setConfirming] = useState(false);
  const data = receiver.data;

  const copy = async (url: string) => {
    try {
      await navigator.clipboard.writeText(url);
      toast.show({ tone: "success", message: "The receiver's address is on the clipboard." });
    } catch {
      toast.show({ tone: "info", message: "The browser refused to copy: select the address and copy it by hand." });
    }
  };
  const empty = () => {
    setConfirming(false);
    clear.mutate(undefined, {
      onSuccess: () => toast.show({ tone: "success", message: "The test receiver is empty." }),
      onError: (error) =>
        toast.show({ tone: "error", message: `The test receiver could not be emptied. ${error.message}` }),
    });
  };

  return (
    <div className="mx-auto max-w-5xl">
      <PageHeader
        title="Test receiver"
        subtitle="A receiver inside this product: point a webhook at its address to see each delivery, its headers and whether its signature checks out, with no server of your own."
        back={<BackLink href="/webhooks">Webhooks</BackLink>}
        actions={
          data && data.received.length > 0 && isAdmin !== false ? (
            <Button onClick={() => setConfirming(true)} disabled={clear.isPending}>
              Empty the receiver
            </Button>
          ) : undefined
        }
      />
      {receiver.isLoading ? (
        <Loading label="Loading the test receiver…" />
      ) : receiver.isError ? (
        <ErrorState
          error={receiver.error}
          title="The test receiver could not be loaded"
          onRetry={() => receiver.refetch()}
          retrying={receiver.isFetching}
        />
      ) : (
        data && (
          <>
            <Card className="p-4 sm:p-5" aria-labelledby="receiver-address">
              <h2 id="receiver-address" className="text-base font-semibold text-slate-900">
                Address
              </h2>
              <p className="mt-1 text-sm text-slate-600">
                A webhook may call it without WEBHOOK_ALLOWED_HOSTS. It keeps the latest 50 requests for 7 days.
              </p>
              <code
                data-testid="receiver-url"
                className="mt-3 block rounded-md bg-slate-100 px-3 py-2 font-mono text-xs [overflow-wrap:anywhere] text-slate-900"
              >
                {data.url}
              </code>
              <div className="mt-3 flex flex-wrap gap-2">
                <Button onClick={() => copy(data.url)}>Copy address</Button>
                <LinkButton kind="primary" href={`/webhooks/new?url=${encodeURIComponent(data.url)}`}>
                  New webhook to this address
                </LinkButton>
              </div>
            </Card>
            <section aria-labelledby="received-heading" className="mt-6">
              <h2 id="received-heading" className="mb-3 text-base font-semibold text-slate-900">
                Received <span className="font-normal text-slate-600">({data.received.length})</span>
              </h2>
              {data.received.length === 0 ? (
                <Card>
                  <EmptyState title="Nothing received yet">
                    Create a webhook to this address, then choose “Send test delivery” on its page: the request shows
                    here within a few seconds.
                  </EmptyState>
                </Card>
              ) : (
                <ol className="flex flex-col gap-3">
                  {data.received.map((receipt, index) => (
                    <li key={receipt._id}>
                      <Receipt receipt={receipt} open={index === 0} />
                    </li>
                  ))}
                </ol>
              )}
            </section>
          </>
        )
      )}
      <ConfirmDialog
        open={confirming}
        title="Empty the test receiver?"
        confirmLabel="Empty the receiver"
        danger
        onConfirm={empty}
        onCancel={() => setConfirming(false)}
      >
        Every request it kept is forgotten. Its address stays the same.
      </ConfirmDialog>
    </div>
  );
}

function Receipt({ receipt, open }: { receipt: ReceiptRecord; open: boolean }) {
  const badge = SIGNATURE_BADGES[receipt.signature];
  return (
    <Card className="overflow-hidden">
      <details open={open} className="group" data-testid="receipt">
        <summary className="flex cursor-pointer flex-wrap items-center gap-x-3 gap-y-1 px-4 py-3 text-sm">
          <span className="font-medium text-slate-900">{receipt.eventType ?? "(no event type)"}</span>
          <Badge tone={badge.tone}>{badge.text}</Badge>
          <span className="text-slate-600">
            <DateTime value={receipt.receivedAt} />
          </span>
        </summary>
        <div className="border-t border-slate-200 px-4 py-3 text-sm">
          <p className="text-slate-700">{receipt.signatureNote}</p>
          <h3 className="mt-4 text-xs font-medium tracking-wide text-slate-500 uppercase">Headers</h3>
          <dl className="mt-1 grid grid-cols-1 gap-x-4 sm:grid-cols-[minmax(0,14rem)_minmax(0,1fr)]">
            {Object.entries(receipt.headers).map(([name, value]) => (
              <div key={name} className="contents">
                <dt className="pt-1 font-mono text-xs [overflow-wrap:anywhere] text-slate-600">{name}</dt>
                <dd className="pb-1 font-mono text-xs [overflow-wrap:anywhere] text-slate-900 sm:pt-1">{value}</dd>
              </div>
            ))}
          </dl>
          <h3 className="mt-4 text-xs font-medium tracking-wide text-slate-500 uppercase">
            Body{receipt.truncated ? " (first 64 KiB)" : ""}
          </h3>
          <pre className="mt-1 max-h-96 overflow-auto rounded-md bg-slate-100 p-3 font-mono text-xs [overflow-wrap:anywhere] whitespace-pre-wrap text-slate-900">
            {shownBody(receipt)}
          </pre>
        </div>
      </details>
    </Card>
  );
}
