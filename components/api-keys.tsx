"use client";

/**
 * The API keys page: create a key with a name, scopes and an optional expiry, see it once to copy
 * it, list the company's keys with their prefix, scopes, last use and expiry, and revoke one.
 */
import { DataTable, ListTotal, type DataColumn } from "@/components/ui/data-table";
import { ConfirmDialog } from "@/components/ui/dialog";
import { ErrorMessage } from "@/components/ui/error-message";
import { useToast } from "@/components/ui/toast";
import { SCOPE_DESCRIPTIONS, SCOPES, type Scope } from "@/lib/base/schemas/scopes";
import { dayBounds } from "@/lib/base/shared/days";
import { useApiKeys, useCreateApiKey, useRevokeApiKey } from "@/lib/client/api-keys";
import { useDayZone } from "@/lib/client/company";
import { serverFieldErrors, zodFieldErrors, type FieldTexts } from "@/lib/client/form-errors";
import { useForm } from "@/lib/client/use-form";
import { useViewSearch } from "@/lib/client/use-view-search";
import {
  CreateApiKeyBody,
  type ApiKeyRecord,
  type CreateApiKeyInput,
  type CreatedApiKey,
} from "@/lib/resources/api-keys/contract";
import { useState, type FormEvent } from "react";
import { LeaveGuard } from "./leave-guard";
import { Pagination } from "./pagination";
import { ShownOnce } from "./shown-once";
import {
  Badge,
  Button,
  Card,
  Checkbox,
  CheckboxGroup,
  DateTime,
  describedBy,
  Facts,
  Field,
  inputClass,
  ListView,
  PageHeader,
  Spinner,
} from "./ui";

const PAGE_SIZE = 20;
const FIELDS = ["name", "scopes", "expiresAt"] as const;
const TEXTS: FieldTexts = { name: { noun: "a name" }, scopes: { noun: "at least one scope" }, expiresAt: {} };
const inputId = (field: string) => `api-key-${field}`;
/** `admin` is admin power: shown apart, marked dangerous, and never chosen unless asked for (docs/security.md#scopes). */
const DANGEROUS: Scope = "admin";
const SCOPE_CHOICES = SCOPES.filter((scope) => scope !== DANGEROUS).map((scope) => ({
  _id: scope,
  name: `${scope}: ${SCOPE_DESCRIPTIONS[scope]}`,
}));

/** Who made a key: a user's name and e-mail, or the key that made it. */
function creatorOf(key: ApiKeyRecord): string {
  const creator = key.createdBy;
  if (!creator) return "Unknown";
  if (creator.type === "apiKey") return `API key “${creator.name ?? creator._id}”`;
  if (!creator.name && !creator.email) return "A former member";
  return creator.email && creator.name !== creator.email
    ? `${creator.name} (${creator.email})`
    : (creator.name ?? creator.email ?? "");
}

const keyId = (key: ApiKeyRecord) => key._id;
const keyName = (key: ApiKeyRecord) => key.name;

export function ApiKeysPage() {
  const { params, show } = useViewSearch();
  const page = Math.max(1, Number(params.get("page")) || 1);
  const opened = params.get("key") ?? "";
  const keys = useApiKeys({ page, limit: PAGE_SIZE });
  const body = keys.data?.data;
  const [shown, setShown] = useState<CreatedApiKey>();
  const [revoking, setRevoking] = useState<ApiKeyRecord>();
  const revoke = useRevokeApiKey();
  const toast = useToast();
  const selected = body?.apiKeys.find((key) => key._id === opened);

  const href = (next: { page?: number; key?: string }) => {
    const query = new URLSearchParams();
    if ((next.page ?? page) > 1) query.set("page", String(next.page ?? page));
    if (next.key) query.set("key", next.key);
    return `/api-keys${query.size ? `?${query}` : ""}`;
  };

  async function confirmRevoke() {
    const key = revoking;
    setRevoking(undefined);
    if (!key) return;
    try {
      await revoke.mutateAsync(key._id);
      toast.show({
        message: `API key “${key.name}” revoked. Requests with it are refused from now on.`,
        tone: "success",
      });
      if (opened === key._id) show(href({}));
    } catch (error) {
      toast.show({
        message: `The key “${key.name}” could not be revoked: ${error instanceof Error ? error.message : "unknown error"}`,
        tone: "error",
      });
    }
  }

  const columns: DataColumn<ApiKeyRecord>[] = [
    { id: "name", header: "Name", cell: (key) => key.name, className: "max-w-72 truncate" },
    {
      id: "prefix",
      header: "Key",
      cell: (key) => <code className="font-mono text-xs">{key.prefix}…</code>,
      className: "whitespace-nowrap",
    },
    { id: "scopes", header: "Scopes", cell: (key) => <Scopes scopes={key.scopes} />, className: "max-w-96" },
    { id: "createdBy", header: "Created by", cell: (key) => creatorOf(key), className: "max-w-64 truncate" },
    {
      id: "lastUsedAt",
      header: "Last used",
      cell: (key) => (key.lastUsedAt ? <DateTime value={key.lastUsedAt} /> : "Never"),
      className: "whitespace-nowrap",
    },
    {
      id: "expiresAt",
      header: "Expires",
      cell: (key) => (key.expiresAt ? <DateTime value={key.expiresAt} /> : "Never"),
      className: "whitespace-nowrap",
    },
    {
      id: "revoke",
      header: "Revoke",
      hideable: false,
      cell: (key) => (
        <Button
          kind="danger"
          className="px-2 py-1 text-xs"
          onClick={() => setRevoking(key)}
          aria-label={`Revoke the key ${key.name}`}
        >
          Revoke
        </Button>
      ),
    },
  ];

  return (
    <>
      <PageHeader
        title="API keys"
        subtitle="Keys let external systems call the /v2 API for this company, limited to the scopes you choose."
      />
      {shown ? <NewKey created={shown} onDone={() => setShown(undefined)} /> : <CreateKeyForm onCreated={setShown} />}

      <h2 className="mt-8 mb-3 text-base font-semibold text-slate-900">Keys of the company</h2>
      <ListView
        query={keys}
        rows={body?.apiKeys}
        loading="Loading the API keys…"
        error="The API keys could not be loaded"
        empty={{
          title: "No API keys yet",
          children: "Create one above for each system that calls the API, with only the scopes it needs.",
        }}
      >
        {() =>
          body && (
            <>
              <Card className="overflow-hidden">
                <DataTable
                  name="api-keys"
                  caption="API keys, newest first"
                  rows={body.apiKeys}
                  columns={columns}
                  rowId={keyId}
                  rowHref={(key) => href({ key: key._id })}
                  rowLabel={keyName}
                  toolbar={
                    <ListTotal
                      total={body.counter ?? body.apiKeys.length}
                      noun={["key", "keys"]}
                      fetching={keys.isFetching}
                      refreshing={false}
                    />
                  }
                />
                <Pagination
                  page={page}
                  limit={PAGE_SIZE}
                  total={body.counter}
                  shown={body.apiKeys.length}
                  noun={["key", "keys"]}
                  onPage={(next) => show(href({ page: next }))}
                />
              </Card>
              {selected && (
                <Card className="mt-6 p-4 sm:p-5" aria-labelledby="api-key-details">
                  <h2 id="api-key-details" className="mb-4 text-base font-semibold text-slate-900">
                    {selected.name}
                  </h2>
                  <Facts
                    items={[
                      [
                        "Key",
                        <code key="prefix" className="font-mono text-xs">
                          {selected.prefix}…
                        </code>,
                      ],
                      ["Scopes", <Scopes key="scopes" scopes={selected.scopes} />],
                      ["Created", <DateTime key="created" value={selected.createdAt} />],
                      ["Created by", creatorOf(selected)],
                      [
                        "Last used",
                        selected.lastUsedAt ? <DateTime key="used" value={selected.lastUsedAt} /> : "Never",
                      ],
                      ["Expires", selected.expiresAt ? <DateTime key="expires" value={selected.expiresAt} /> : "Never"],
                    ]}
                  />
                </Card>
              )}
            </>
          )
        }
      </ListView>
      <ConfirmDialog
        open={revoking !== undefined}
        title={`Revoke the key “${revoking?.name ?? ""}”?`}
        confirmLabel="Revoke key"
        danger
        onConfirm={confirmRevoke}
        onCancel={() => setRevoking(undefined)}
      >
        Systems using it are refused at once (every server within 5 seconds). This cannot be undone: a new key would
        have to be created and given to them.
      </ConfirmDialog>
    </>
  );
}

function Scopes({ scopes }: { scopes: readonly Scope[] }) {
  return (
    <span className="flex flex-wrap gap-1">
      {scopes.map((scope) => (
        <Badge key={scope} tone={scope === DANGEROUS ? "red" : scope.endsWith(":read") ? "blue" : "amber"}>
          {scope}
        </Badge>
      ))}
    </span>
  );
}

interface FormState {
  name: string;
  scopes: string[];
  /** A day (`YYYY-MM-DD`): the key works until the end of that day, in this browser's time zone. */
  expiresAt: string;
}

function CreateKeyForm({ onCreated }: { onCreated: (created: CreatedApiKey) => void }) {
  const { state, set, errors, setErrors, formError, setFormError, fail, dirty } = useForm<FormState>(
    () => ({ name: "", scopes: [], expiresAt: "" }),
    FIELDS,
    inputId,
  );
  const zone = useDayZone();
  const expiresAt = dayBounds(undefined, state.expiresAt, zone).to;
  const create = useCreateApiKey();
  const toast = useToast();

  async function submit(event: FormEvent) {
    event.preventDefault();
    setFormError(undefined);
    const body: CreateApiKeyInput = {
      name: state.name,
      scopes: state.scopes as Scope[],
      // The last millisecond of the day in the company's zone (docs/api.md#days).
      ...(expiresAt ? { expiresAt } : {}),
    };
    const checked = CreateApiKeyBody.safeParse(body);
    if (!checked.success) return fail(zodFieldErrors(checked.error, FIELDS, TEXTS, body).fields);
    setErrors({});
    try {
      const created = await create.mutateAsync(body);
      toast.show({ message: `API key “${created.name}” created. Copy it now.`, tone: "success" });
      onCreated(created);
    } catch (error) {
      fail(serverFieldErrors(error, FIELDS, TEXTS).fields, error);
    }
  }

  return (
    <Card className="p-5 sm:p-6">
      <form onSubmit={submit} noValidate className="flex flex-col gap-4" aria-labelledby="new-api-key">
        <LeaveGuard when={dirty && !create.isPending} />
        <h2 id="new-api-key" className="text-base font-semibold text-slate-900">
          New API key
        </h2>
        <div className="grid gap-4 sm:grid-cols-2">
          <Field
            id={inputId("name")}
            label="Name"
            error={errors.name}
            hint="Which system uses it, so you recognise it later."
          >
            <input
              id={inputId("name")}
              value={state.name}
              onChange={(event) => set("name", event.target.value)}
              autoComplete="off"
              placeholder="Payroll sync"
              {...describedBy(inputId("name"), errors.name, true)}
              className={inputClass}
            />
          </Field>
          <Field
            id={inputId("expiresAt")}
            label="Expires (optional)"
            error={errors.expiresAt}
            hint={`The key works until the end of this day (days are in ${zone}). Empty: until revoked.`}
          >
            <input
              id={inputId("expiresAt")}
              type="date"
              value={state.expiresAt}
              onChange={(event) => set("expiresAt", event.target.value)}
              {...describedBy(inputId("expiresAt"), errors.expiresAt, true)}
              className={inputClass}
            />
          </Field>
        </div>
        <CheckboxGroup
          id={inputId("scopes")}
          legend="Scopes"
          hint="(what the key may do)"
          records={SCOPE_CHOICES}
          value={state.scopes}
          onChange={(scopes) => set("scopes", scopes)}
          error={errors.scopes}
          columns={2}
        />
        <div className="flex items-start gap-2 rounded-md border border-rose-300 bg-rose-50 p-3">
          <Checkbox
            id={inputId("admin")}
            danger
            checked={state.scopes.includes(DANGEROUS)}
            onChange={(event) =>
              set(
                "scopes",
                event.target.checked
                  ? [...state.scopes, DANGEROUS]
                  : state.scopes.filter((scope) => scope !== DANGEROUS),
              )
            }
            aria-describedby={`${inputId("admin")}-hint`}
            className="mt-0.5"
          />
          <div className="text-sm">
            <label htmlFor={inputId("admin")} className="font-medium text-rose-900">
              admin: dangerous
            </label>
            <p id={`${inputId("admin")}-hint`} className="text-rose-800">
              Admin power: the key may make admins, change a role&apos;s isAdmin, set passwords and change an
              admin&apos;s account. Give it only to a system that must, with the other scopes it needs.
            </p>
          </div>
        </div>
        {formError !== undefined && <ErrorMessage error={formError} hideDetails />}
        <div>
          <Button kind="primary" type="submit" disabled={create.isPending}>
            {create.isPending ? <Spinner className="size-3.5" /> : null} Create key
          </Button>
        </div>
      </form>
    </Card>
  );
}

/** The new key, shown this once: the server keeps only its hash. */
function NewKey({ created, onDone }: { created: CreatedApiKey; onDone: () => void }) {
  return (
    <ShownOnce
      id="created-api-key"
      title={`Your new key “${created.name}”`}
      warning="Copy it now: you will not see it again. The server keeps only a hash of it."
      label="API key"
      noun="key"
      value={created.key ?? ""}
      onDone={onDone}
    >
      Send it as <code className="font-mono text-xs">Authorization: Bearer {created.prefix}…</code>
    </ShownOnce>
  );
}
