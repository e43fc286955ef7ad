"use client";

/**
 * A webhook's page: its state and actions (test delivery, disable or enable, rotate the secret,
 * delete), the delivery log with a redelivery of each entry, and its settings.
 */
import { ConfirmDialog } from "@/components/ui/dialog";
import { ErrorState } from "@/components/ui/error-state";
import { useToast } from "@/components/ui/toast";
import { feedback, focusHeadingAfterNavigation } from "@/lib/client/feedback";
import { useWebhook, useWebhookActions } from "@/lib/client/webhooks";
import type { WebhookRecord } from "@/lib/resources/webhooks/contract";
import { useRouter } from "next/navigation";
import { useState, type ReactNode } from "react";
import { useIsAdmin } from "../admin-shell";
import { ShownOnce } from "../shown-once";
import { ActiveBadge, BackLink, Button, Card, DateTime, Facts, Loading, PageHeader, Spinner } from "../ui";
import { DeliveryLog, useOutcomeToasts } from "./delivery-log";
import { WebhookForm } from "./webhook-form";
import { EventFilters, SigningHint } from "./webhook-list";

type Confirming = "disable" | "rotate" | "delete";

const errorText = (error: unknown) => (error instanceof Error ? error.message : "unknown error");

export function WebhookPage({ id }: { id: string }) {
  const webhook = useWebhook(id);
  const back = <BackLink href="/webhooks">Webhooks</BackLink>;

  if (webhook.isLoading) return <Loading label="Loading the webhook…" />;
  if (!webhook.data) {
    return (
      <>
        <PageHeader title="Webhook" back={back} />
        <ErrorState
          error={webhook.error}
          title="The webhook could not be loaded"
          onRetry={() => webhook.refetch()}
          retrying={webhook.isFetching}
        />
      </>
    );
  }
  return <Loaded webhook={webhook.data} back={back} />;
}

function Loaded({ webhook, back }: { webhook: WebhookRecord; back: ReactNode }) {
  const router = useRouter();
  const toast = useToast();
  const isAdmin = useIsAdmin();
  const { update, rotate, test, remove } = useWebhookActions(webhook._id);
  const [confirming, setConfirming] = useState<Confirming>();
  const [secret, setSecret] = useState<string>();
  const watch = useOutcomeToasts(webhook._id);
  const busy = update.isPending || rotate.isPending || test.isPending || remove.isPending;

  async function setActive(isActive: boolean) {
    setConfirming(undefined);
    try {
      await update.mutateAsync({ isActive });
      toast.show({
        message: isActive
          ? "The webhook is enabled: events from now on are sent to it."
          : "The webhook is disabled: no events are sent to it until it is enabled again.",
      });
    } catch (error) {
      toast.show({ message: `${feedback.failed("webhook")} ${errorText(error)}`, tone: "error" });
    }
  }

  async function rotateSecret() {
    setConfirming(undefined);
    try {
      const rotated = await rotate.mutateAsync();
      setSecret(rotated.secret);
      toast.show({
        message: "The signing secret was rotated: copy the new one now. The old one no longer signs anything.",
      });
    } catch (error) {
      toast.show({ message: `The secret was not rotated: ${errorText(error)}`, tone: "error" });
    }
  }

  async function sendTest() {
    try {
      const delivery = await test.mutateAsync();
      watch(
        delivery._id,
        "The test delivery",
        "Test delivery queued: its outcome appears in the delivery log in a moment.",
      );
    } catch (error) {
      toast.show({ message: `The test delivery was not sent: ${errorText(error)}`, tone: "error" });
    }
  }

  async function deleteWebhook() {
    setConfirming(undefined);
    try {
      await remove.mutateAsync();
      toast.show({ message: feedback.deleted("webhook") });
      focusHeadingAfterNavigation();
      router.push("/webhooks");
    } catch (error) {
      toast.show({ message: `The webhook was not deleted: ${errorText(error)}`, tone: "error" });
    }
  }

  const actions = isAdmin !== false && (
    <>
      <Button kind="primary" onClick={sendTest} disabled={busy}>
        {test.isPending && <Spinner className="size-3.5" />} Send test delivery
      </Button>
      {webhook.isActive ? (
        <Button onClick={() => setConfirming("disable")} disabled={busy}>
          Disable
        </Button>
      ) : (
        <Button onClick={() => setActive(true)} disabled={busy}>
          Enable
        </Button>
      )}
      <Button onClick={() => setConfirming("rotate")} disabled={busy}>
        Rotate secret
      </Button>
      <Button kind="danger" onClick={() => setConfirming("delete")} disabled={busy}>
        Delete
      </Button>
    </>
  );

  return (
    <div className="mx-auto flex max-w-5xl flex-col gap-6">
      <PageHeader
        back={back}
        title={<span className="font-mono text-xl">{webhook.url}</span>}
        subtitle={webhook.description}
        actions={actions}
      />
      {secret && (
        <ShownOnce
          id="rotated-secret"
          title="The new signing secret"
          warning="Copy it now: you will not see it again. Give it to the receiver: deliveries are signed with it from now on."
          label="Signing secret"
          noun="secret"
          value={secret}
          onDone={() => setSecret(undefined)}
        >
          <SigningHint />
        </ShownOnce>
      )}
      {!webhook.isActive && (
        <p role="status" className="rounded-md border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900">
          This webhook is disabled: no events are sent to it, and those that happen meanwhile are not sent later. A test
          delivery still goes out. (It is also disabled by the service after days of failed deliveries.)
        </p>
      )}
      <Card className="p-5 sm:p-6">
        <Facts
          items={[
            ["State", <ActiveBadge key="state" active={webhook.isActive} />],
            ["Events", <EventFilters key="events" events={webhook.events} />],
            ["Created", <DateTime key="created" value={webhook.createdAt} />],
            ["Last changed", <DateTime key="modified" value={webhook.modifiedAt} />],
          ]}
        />
      </Card>
      <DeliveryLog webhookId={webhook._id} canRedeliver={isAdmin !== false} watch={watch} />
      {isAdmin !== false && (
        <WebhookForm key={`${webhook.url} ${webhook.events.join()} ${webhook.description}`} record={webhook} />
      )}

      <ConfirmDialog
        open={confirming === "disable"}
        title="Disable this webhook?"
        confirmLabel="Disable webhook"
        danger
        onConfirm={() => setActive(false)}
        onCancel={() => setConfirming(undefined)}
      >
        No events are sent to it while it is disabled, and events that happen meanwhile are not sent when it is enabled
        again.
      </ConfirmDialog>
      <ConfirmDialog
        open={confirming === "rotate"}
        title="Rotate the signing secret?"
        confirmLabel="Rotate secret"
        onConfirm={rotateSecret}
        onCancel={() => setConfirming(undefined)}
      >
        A new secret signs every delivery from now on and the current one stops at once: the receiver rejects deliveries
        until it has the new secret.
      </ConfirmDialog>
      <ConfirmDialog
        open={confirming === "delete"}
        title="Delete this webhook?"
        confirmLabel="Delete webhook"
        danger
        onConfirm={deleteWebhook}
        onCancel={() => setConfirming(undefined)}
      >
        Its delivery log goes with it and queued deliveries are not sent. This cannot be undone.
      </ConfirmDialog>
    </div>
  );
}
