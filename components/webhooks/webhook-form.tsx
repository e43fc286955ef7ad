"use client";

import { ErrorMessage } from "@/components/ui/error-message";
import { useToast } from "@/components/ui/toast";
import { EVENT_ACTIONS, EVENT_RESOURCES, type EventResource } from "@/lib/base/schemas/event-types";
import { holdsMask } from "@/lib/base/shared/masked-url";
import { ApiError } from "@/lib/client/api";
import { feedback } from "@/lib/client/feedback";
import { serverFieldErrors, zodFieldErrors, type FieldErrors, type FieldTexts } from "@/lib/client/form-errors";
import { useForm } from "@/lib/client/use-form";
import { useHydrated } from "@/lib/client/use-hydrated";
import { useCreateWebhook, useWebhookActions } from "@/lib/client/webhooks";
import {
  CreateWebhookBody,
  UpdateWebhookBody,
  type CreateWebhookInput,
  type EventFilter,
  type UpdateWebhookInput,
  type WebhookRecord,
  type WebhookWithSecret,
} from "@/lib/resources/webhooks/contract";
import type { FormEvent } from "react";
import { LeaveGuard } from "../leave-guard";
import { Button, Card, Checkbox, Field, GroupError, LinkButton, describedBy, inputClass } from "../ui";

const FIELDS = ["url", "events", "description"] as const;
const TEXTS: FieldTexts = {
  url: { noun: "the address that receives the events" },
  events: { noun: "at least one event type" },
  description: {},
};
const inputId = (field: string) => `webhook-${field}`;

const RESOURCE_LABELS: Record<EventResource, string> = {
  user: "Users",
  survey: "Surveys",
  accessRole: "Access roles",
  jobTitle: "Job titles",
  property: "Properties",
  bot: "Bots",
  apiKey: "API keys",
  webhook: "Webhooks",
};

interface FormState {
  url: string;
  events: string[];
  description: string;
}

/**
 * The server's refusal of a URL (the URL guard) in words for a person; undefined for any other
 * error, which the usual field errors say.
 */
function urlRefusal(error: unknown): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  const message = error.details.find((detail) => detail.path === "url")?.message ?? "";
  if (message.startsWith("must point to a public address")) {
    // "(10.0.0.1 is private)" or "(hooks.internal resolves to 10.0.0.1, private)"
    const [, host, address, range] = /\((\S+) (?:is|resolves to (\S+),) ([^)]+)\)/.exec(message) ?? [];
    const where =
      host === undefined ? "" : address === undefined ? ` (${host}, ${range})` : ` (${host} is ${address}, ${range})`;
    return `This address is on a private or local network${where}. A webhook can only call a server on the public internet, unless the server's operator lists this host in WEBHOOK_ALLOWED_HOSTS. To try webhooks without a server, use the built-in test receiver (Webhooks › Test receiver).`;
  }
  if (message.includes("send the whole URL"))
    return "••• hides a secret of the saved address. To change the address, type it whole, with its secrets; to keep it, leave it as it is.";
  if (message.includes("port 0"))
    return "Port 0 reaches no server. Give the receiver's port, or none for the usual one.";
  if (message.includes("did not resolve within"))
    return "Looking up this server's name took too long. Check the address, or try again.";
  if (message.includes("does not resolve")) return "No server has this name. Check the address for typos.";
  return undefined;
}

/** The webhook's URL, events and description: a new one (`onCreated` gets its secret) or an edit of `record`. */
export function WebhookForm({
  record,
  onCreated,
  initialUrl = "",
}: {
  record?: WebhookRecord;
  onCreated?: (created: WebhookWithSecret) => void;
  initialUrl?: string;
}) {
  const hydrated = useHydrated();
  const toast = useToast();
  const create = useCreateWebhook();
  const { update } = useWebhookActions(record?._id ?? "");
  const saving = create.isPending || update.isPending;
  const { state, set, errors, setErrors, formError, setFormError, fail, dirty } = useForm<FormState>(
    () => ({ url: record?.url ?? initialUrl, events: record?.events ?? [], description: record?.description ?? "" }),
    FIELDS,
    inputId,
  );

  function failed(error: unknown) {
    const refused = urlRefusal(error);
    const fieldErrors: FieldErrors = {
      ...serverFieldErrors(error, FIELDS, TEXTS).fields,
      ...(refused ? { url: refused } : {}),
    };
    fail(fieldErrors, Object.keys(fieldErrors).length > 0 ? undefined : error);
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    setFormError(undefined);
    const description = state.description.trim();
    if (!record) {
      const body: CreateWebhookInput = {
        url: state.url.trim(),
        events: state.events as EventFilter[],
        ...(description ? { description } : {}),
      };
      const checked = CreateWebhookBody.safeParse(body);
      if (!checked.success) return fail(zodFieldErrors(checked.error, FIELDS, TEXTS, body).fields);
      setErrors({});
      try {
        const created = await create.mutateAsync(body);
        toast.show({ message: `${feedback.created("webhook")} Copy its signing secret now.` });
        onCreated?.(created);
      } catch (error) {
        failed(error);
      }
      return;
    }
    // An edit sends only what changed.
    const body: UpdateWebhookInput = {};
    if (state.url.trim() !== record.url) body.url = state.url.trim();
    if ([...state.events].sort().join() !== [...record.events].sort().join())
      body.events = state.events as EventFilter[];
    if (description !== (record.description ?? "")) body.description = description || null;
    const checked = UpdateWebhookBody.safeParse(body);
    if (!checked.success) return fail(zodFieldErrors(checked.error, FIELDS, TEXTS, body).fields);
    setErrors({});
    if (Object.keys(body).length === 0)
      return void toast.show({ message: feedback.unchanged("webhook"), tone: "info" });
    try {
      await update.mutateAsync(body);
      toast.show({ message: feedback.saved("webhook") });
    } catch (error) {
      failed(error);
    }
  }

  const urlId = inputId("url");
  const descriptionId = inputId("description");
  return (
    <form onSubmit={submit} noValidate aria-labelledby="webhook-form-title" className="flex flex-col gap-4">
      <LeaveGuard when={dirty && !saving} />
      <Card className="p-5 sm:p-6">
        <h2 id="webhook-form-title" className="mb-4 text-base font-semibold text-slate-900">
          {record ? "Settings" : "The new webhook"}
        </h2>
        <div className="flex flex-col gap-5">
          <Field
            id={urlId}
            label="Endpoint URL"
            error={errors.url}
            hint={
              record && holdsMask(record.url)
                ? "Its secrets (user:password@, query values) show as •••. Leave it as it is to keep them; to change the address, type it whole."
                : "The address that receives each event as a signed POST: http:// or https://, on the public internet."
            }
          >
            <input
              id={urlId}
              type="url"
              inputMode="url"
              value={state.url}
              onChange={(event) => set("url", event.target.value)}
              autoComplete="off"
              spellCheck={false}
              placeholder="https://example.com/hooks/users"
              {...describedBy(urlId, errors.url, true)}
              className={`${inputClass} font-mono`}
            />
          </Field>
          <EventPicker
            id={inputId("events")}
            value={state.events}
            onChange={(events) => set("events", events)}
            error={errors.events}
          />
          <Field
            id={descriptionId}
            label="Description (optional)"
            error={errors.description}
            hint="What receives the events, so you recognise it later. Up to 500 characters."
          >
            <textarea
              id={descriptionId}
              rows={2}
              value={state.description}
              onChange={(event) => set("description", event.target.value)}
              {...describedBy(descriptionId, errors.description, true)}
              className={inputClass}
            />
          </Field>
        </div>
      </Card>
      {formError !== undefined && (
        <ErrorMessage
          error={formError}
          title={record ? "The webhook could not be saved" : "The webhook could not be created"}
        />
      )}
      <div className="flex flex-wrap justify-end gap-3">
        {!record && <LinkButton href="/webhooks">Cancel</LinkButton>}
        <Button type="submit" kind="primary" disabled={saving || !hydrated}>
          {saving ? "Saving…" : record ? "Save changes" : "Create webhook"}
        </Button>
      </div>
    </form>
  );
}

/**
 * The event filters as checkboxes, a row per kind of record: `<resource>.*` takes all of a kind's
 * events (those added later too), so while it is checked the single types of that kind are shown
 * checked and cannot be changed.
 */
function EventPicker({
  id,
  value,
  onChange,
  error,
}: {
  id: string;
  value: string[];
  onChange: (value: string[]) => void;
  error?: string;
}) {
  const toggle = (filter: string, on: boolean) =>
    onChange(on ? [...value, filter] : value.filter((item) => item !== filter));
  const toggleAll = (resource: EventResource, on: boolean) =>
    // Checking `<resource>.*` drops that kind's single types: the filter says it once.
    onChange(
      on
        ? [...value.filter((item) => !item.startsWith(`${resource}.`)), `${resource}.*`]
        : value.filter((item) => item !== `${resource}.*`),
    );

  return (
    <fieldset aria-describedby={error ? `${id}-error` : `${id}-hint`} aria-invalid={error ? true : undefined}>
      <legend className="text-sm font-medium text-slate-800">Events</legend>
      <p id={`${id}-hint`} className="text-xs text-slate-500">
        Which changes are sent. The first box of a row, <span className="font-mono">&lt;kind&gt;.*</span>, takes every
        event of that kind.
      </p>
      <div
        className={`mt-2 divide-y divide-slate-100 rounded-md border ${error ? "border-rose-400" : "border-slate-200"}`}
      >
        {EVENT_RESOURCES.map((resource, row) => {
          const all = `${resource}.*`;
          const allChecked = value.includes(all);
          const groupId = `${id}-${resource}-label`;
          const boxes = [
            {
              filter: all,
              head: all,
              rest: " (all)",
              checked: allChecked,
              disabled: false,
              onChange: (on: boolean) => toggleAll(resource, on),
            },
            ...EVENT_ACTIONS.map((action) => {
              const filter = `${resource}.${action}`;
              return {
                filter,
                head: `${resource}.`,
                rest: action,
                checked: allChecked || value.includes(filter),
                disabled: allChecked,
                onChange: (on: boolean) => toggle(filter, on),
              };
            }),
          ];
          return (
            <div
              key={resource}
              role="group"
              aria-labelledby={groupId}
              className="flex flex-col gap-1.5 px-3 py-2.5 md:flex-row md:items-center md:gap-4"
            >
              <span id={groupId} className="text-sm font-medium text-slate-800 md:w-28 md:shrink-0">
                {RESOURCE_LABELS[resource]}
              </span>
              <div className="grid grid-cols-2 gap-x-4 gap-y-1.5 sm:flex sm:flex-wrap">
                {boxes.map((box, column) => {
                  // The first box carries the group's id, so an error moves the focus there.
                  const boxId =
                    row === 0 && column === 0 ? id : `${id}-${box.filter.replace(".*", "-all").replace(".", "-")}`;
                  return (
                    <div key={box.filter} className="flex min-w-0 items-center gap-2 sm:min-w-40">
                      <Checkbox
                        id={boxId}
                        checked={box.checked}
                        disabled={box.disabled}
                        onChange={(event) => box.onChange(event.target.checked)}
                      />
                      <label
                        htmlFor={boxId}
                        className={`font-mono text-xs whitespace-nowrap ${box.disabled ? "text-slate-500" : "text-slate-800"}`}
                      >
                        {/* On a phone the row's heading names the kind: the label shows the rest, and still reads whole. */}
                        <span className="sr-only sm:not-sr-only">{box.head}</span>
                        {box.rest}
                      </label>
                    </div>
                  );
                })}
              </div>
            </div>
          );
        })}
      </div>
      <GroupError id={id} error={error} />
    </fieldset>
  );
}
