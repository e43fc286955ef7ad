"use client";

import { ErrorMessage } from "@/components/ui/error-message";
import { useToast } from "@/components/ui/toast";
import { feedback, focusHeadingAfterNavigation } from "@/lib/client/feedback";
import { serverFieldErrors, zodFieldErrors, type FieldTexts } from "@/lib/client/form-errors";
import { useReference } from "@/lib/client/reference";
import { useForm } from "@/lib/client/use-form";
import { useHydrated } from "@/lib/client/use-hydrated";
import {
  fetchUserToEdit,
  RELATIONS,
  useCreateUser,
  userKeys,
  useUpdateUser,
  type CreateUserInput,
  type Relation,
  type UpdateUserInput,
} from "@/lib/client/users";
import { CreateUserBody, UpdateUserBody, type UserRecord } from "@/lib/resources/users/contract";
import { useRouter } from "next/navigation";
import { useState, type FormEvent, type ReactNode } from "react";
import { EditConflict, isStale, useEditConflict } from "../edit-conflict";
import { LeaveGuard } from "../leave-guard";
import { Button, Card, Checkbox, CheckboxGroup, describedBy, Field, inputClass, LinkButton, RecordSelect } from "../ui";
import { RevokeKeysChoice } from "./bulk-actions";
import { UsersPicker } from "./user-picker";

/** The fields of the form, in the order they appear (errors focus the first one). */
const FIELDS = [
  "email",
  "name.displayName",
  "name.names",
  "name.lastName",
  "name.secondLastName",
  "phone",
  "accessRoles",
  "job",
  "properties",
  "bot",
  "companies.0.hierarchy.boss",
  "companies.0.hierarchy.peers",
  "companies.0.hierarchy.subordinate",
  "extensions",
  "password",
] as const;
type FieldName = (typeof FIELDS)[number];

/** How the messages next to the fields speak of them. */
const TEXTS: FieldTexts = {
  email: { noun: "the e-mail address" },
  "name.displayName": { noun: "the display name" },
  "name.names": { noun: "the first names" },
  "name.lastName": { noun: "the last name" },
  accessRoles: { noun: "at least one access role" },
  password: { rule: "Between 8 and 256 characters." },
};

const inputId = (field: string) => `user-${field.replaceAll(".", "-")}`;

interface FormState {
  email: string;
  displayName: string;
  names: string;
  lastName: string;
  secondLastName: string;
  phone: string;
  accessRoles: string[];
  properties: string[];
  job: string;
  bot: string;
  password: string;
  notifyEmail: boolean;
  /** `extensions` as JSON text, as the admin types it. */
  extensions: string;
  /** The user's reporting lines in this company (editing only). */
  hierarchy: Record<Relation, string[]>;
}

function initialState(user?: UserRecord): FormState {
  return {
    email: user?.email ?? "",
    displayName: user?.name?.displayName ?? "",
    names: user?.name?.names ?? "",
    lastName: user?.name?.lastName ?? "",
    secondLastName: user?.name?.secondLastName ?? "",
    phone: user?.phone ?? "",
    accessRoles: user?.accessRoles ?? [],
    properties: user?.properties ?? [],
    job: user?.job ?? "",
    bot: user?.bot ?? "",
    password: "",
    notifyEmail: false,
    extensions: JSON.stringify(user?.extensions ?? {}, null, 2),
    hierarchy: {
      boss: user?.companies[0]?.hierarchy.boss ?? [],
      peers: user?.companies[0]?.hierarchy.peers ?? [],
      subordinate: user?.companies[0]?.hierarchy.subordinate ?? [],
    },
  };
}

function nameOf(state: FormState) {
  const parts = [state.displayName, state.names, state.lastName, state.secondLastName];
  if (parts.every((part) => part.trim() === "")) return undefined;
  return {
    // A display name left empty is made from the names, as most people would write it.
    displayName: state.displayName.trim() || [state.names.trim(), state.lastName.trim()].filter(Boolean).join(" "),
    names: state.names,
    lastName: state.lastName,
    secondLastName: state.secondLastName,
  };
}

type Extensions = Record<string, unknown>;

/** The `extensions` text as an object, or what is wrong with it (the schema checks the rest). */
function parseExtensions(text: string): { value: Extensions } | { error: string } {
  if (text.trim() === "") return { value: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { error: `Is not valid JSON: ${error instanceof Error ? error.message : String(error)}.` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return { error: 'Must be a JSON object, such as {"team": "blue"}.' };
  return { value: value as Extensions };
}

function createBody(state: FormState, extensions: Extensions): CreateUserInput {
  return {
    email: state.email,
    accessRoles: state.accessRoles,
    properties: state.properties,
    ...(nameOf(state) ? { name: nameOf(state) } : {}),
    ...(state.job ? { job: state.job } : {}),
    ...(state.bot ? { bot: state.bot } : {}),
    ...(state.phone.trim() ? { phone: state.phone } : {}),
    ...(state.password ? { password: state.password } : {}),
    ...(Object.keys(extensions).length > 0 ? { extensions } : {}),
  };
}

const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((id) => b.includes(id));

/** Only what changed, as PATCH wants it. */
function updateBody(state: FormState, user: UserRecord, extensions: Extensions): UpdateUserInput {
  const before = initialState(user);
  const body: UpdateUserInput = {};
  const name = nameOf(state);
  const nameChanged = (["displayName", "names", "lastName", "secondLastName"] as const).some(
    (part) => state[part] !== before[part],
  );
  if (name && nameChanged) body.name = name;
  if (state.phone !== before.phone) body.phone = state.phone.trim() || null;
  if (!sameSet(state.accessRoles, before.accessRoles)) body.accessRoles = state.accessRoles;
  if (!sameSet(state.properties, before.properties)) body.properties = state.properties;
  if (state.job !== before.job) body.job = state.job || null;
  if (state.bot !== before.bot) body.bot = state.bot || null;
  if (state.password) body.password = state.password;
  if (JSON.stringify(extensions) !== JSON.stringify(user.extensions ?? {})) body.extensions = extensions;
  const hierarchy = Object.fromEntries(
    RELATIONS.filter(({ key }) => !sameSet(state.hierarchy[key], before.hierarchy[key])).map(({ key }) => [
      key,
      state.hierarchy[key],
    ]),
  );
  // Only the caller's company entry can be changed, and only the lists that changed are sent.
  if (Object.keys(hierarchy).length > 0) body.companies = [{ hierarchy }];
  return body;
}

/** How the conflict panel names the fields it compares. */
const LABELS: Record<string, string> = {
  displayName: "Display name",
  names: "First names",
  lastName: "Last name",
  secondLastName: "Second last name",
  phone: "Phone",
  accessRoles: "Access roles",
  properties: "Properties",
  job: "Job title",
  bot: "Bot",
  extensions: "Extensions",
  hierarchy: "Reporting lines",
};

/**
 * `user` is the version the edit starts from and `etag` its tag: the save sends it in `If-Match`,
 * so a version saved meanwhile by someone else is never overwritten unseen.
 */
export function UserForm({ user, etag }: { user?: UserRecord; etag?: string }) {
  const router = useRouter();
  const hydrated = useHydrated();
  const editing = Boolean(user);
  const { state, set, errors, setErrors, formError, setFormError, fail, dirty } = useForm(
    () => initialState(user),
    FIELDS,
    inputId,
  );
  const toast = useToast();
  const create = useCreateUser();
  const update = useUpdateUser(user?._id ?? "");
  const busy = create.isPending || update.isPending;

  const roles = useReference("accessRoles");
  // Taking a user's last admin role offers to revoke the API keys they made, checked (docs/security.md#scopes).
  const [revokeKeys, setRevokeKeys] = useState(true);
  const adminRoles = new Set((roles.data ?? []).filter((role) => role.isAdmin).map((role) => role._id));
  const losesAdmin =
    Boolean(user) &&
    (user?.accessRoles ?? []).some((id) => adminRoles.has(id)) &&
    !state.accessRoles.some((id) => adminRoles.has(id));
  const jobs = useReference("jobTitles");
  const properties = useReference("properties");
  const bots = useReference("bots");

  const names = (kind: "accessRoles" | "properties" | "jobTitles" | "bots", ids: string[]) => {
    const records = { accessRoles: roles, properties, jobTitles: jobs, bots }[kind].data ?? [];
    return ids.map((id) => records.find((record) => record._id === id)?.name ?? id).join(", ") || "—";
  };
  const format = (field: string, value: unknown): string => {
    if (field === "accessRoles" || field === "properties") return names(field, value as string[]);
    if (field === "job" || field === "bot")
      return value ? names(field === "job" ? "jobTitles" : "bots", [value as string]) : "—";
    if (field === "hierarchy") {
      const lines = value as FormState["hierarchy"];
      return RELATIONS.map(({ key, label }) => `${label}: ${lines[key].length}`).join(", ");
    }
    return typeof value === "string" && value.trim() !== "" ? value : "—";
  };
  /** The comparable part of a form state: what the panel may show (never the password). */
  const comparable = (form: FormState) =>
    Object.fromEntries(Object.keys(LABELS).map((key) => [key, form[key as keyof FormState]]));

  const conflicts = useEditConflict({
    editKey: userKeys.edit(user?._id),
    etag,
    load: () => fetchUserToEdit(user!._id),
    fields: (record: UserRecord) => comparable(initialState(record)),
    labels: LABELS,
    format,
    // A user record does not say who changed it: the panel says "someone else".
  });

  /**
   * `tag` is the version the save applies to; `retry` lets a refused save that differs from the
   * saved version in no field of this form (only in bookkeeping) go through once without asking.
   */
  async function submit(event?: FormEvent, tag = conflicts.tag, retry = true) {
    event?.preventDefault();
    setFormError(undefined);
    const extensions = parseExtensions(state.extensions);
    // A bad JSON field is one error among the form's: the other fields are checked too, with the
    // stored extensions standing in for it, so every error shows at once.
    const body = user
      ? updateBody(state, user, "error" in extensions ? (user.extensions ?? {}) : extensions.value)
      : createBody(state, "error" in extensions ? {} : extensions.value);
    const checked = (user ? UpdateUserBody : CreateUserBody).safeParse(body);
    const fieldErrors = {
      ...(checked.success ? {} : zodFieldErrors(checked.error, FIELDS, TEXTS, body).fields),
      ...("error" in extensions ? { extensions: extensions.error } : {}),
    };
    if (Object.keys(fieldErrors).length > 0) return fail(fieldErrors);
    setErrors({});
    try {
      if (user) {
        const changed = Object.keys(body).length > 0;
        // Overwriting sends the tag of the version the conflict showed: it applies only if nobody
        // saved again since.
        if (changed)
          await update.mutateAsync({
            body: body as UpdateUserInput,
            ifMatch: tag,
            revokeKeys: losesAdmin ? revokeKeys : undefined,
          });
        conflicts.clear();
        toast.show({
          message: changed ? feedback.saved("user") : feedback.unchanged("user"),
          tone: changed ? "success" : "info",
        });
        focusHeadingAfterNavigation();
        router.push(`/users/${user._id}`);
      } else {
        const invited = state.notifyEmail && !state.password;
        const created = await create.mutateAsync({ body: body as CreateUserInput, notifyEmail: invited });
        toast.show({
          message: invited
            ? `${feedback.created("user")} An invitation e-mail with a link to set a password is on its way.`
            : feedback.created("user"),
        });
        focusHeadingAfterNavigation();
        router.push(`/users/${created._id}`);
      }
    } catch (error) {
      if (user && isStale(error)) {
        const again = await conflicts
          .refused(user, comparable(state))
          .catch((reading: unknown) => void fail({}, reading));
        if (again && retry) await submit(undefined, again, false);
        return;
      }
      const { fields } = serverFieldErrors(error, FIELDS, TEXTS);
      fail(fields, error);
    }
  }

  const text = (
    field: FieldName,
    key: keyof FormState,
    label: ReactNode,
    props: { type?: string; autoComplete?: string; placeholder?: string; hint?: ReactNode; readOnly?: boolean } = {},
  ) => {
    const id = inputId(field);
    return (
      <Field id={id} label={label} error={errors[field]} hint={props.hint}>
        <input
          id={id}
          type={props.type ?? "text"}
          value={state[key] as string}
          onChange={(event) => set(key, event.target.value as never)}
          autoComplete={props.autoComplete ?? "off"}
          placeholder={props.placeholder}
          readOnly={props.readOnly}
          {...describedBy(id, errors[field], Boolean(props.hint))}
          className={inputClass}
        />
      </Field>
    );
  };

  return (
    <form onSubmit={submit} noValidate className="flex flex-col gap-6">
      <LeaveGuard when={dirty && !busy} />
      <Card className="p-5 sm:p-6">
        <h2 className="mb-4 text-base font-semibold text-slate-900">Identity</h2>
        <div className="grid gap-4 sm:grid-cols-2">
          {text("email", "email", editing ? "E-mail (cannot be changed)" : "E-mail", {
            type: "email",
            readOnly: editing,
            placeholder: "name@company.com",
            hint: editing
              ? "The e-mail of a user is fixed once created."
              : "Required. The address the user signs in with.",
          })}
          {text("phone", "phone", "Phone", { type: "tel", placeholder: "+34 600 000 000" })}
          {text("name.names", "names", "First and middle names", { placeholder: "Ana María" })}
          {text("name.lastName", "lastName", "Last name", { placeholder: "Pérez" })}
          {text("name.secondLastName", "secondLastName", "Second last name", { hint: "May stay empty." })}
          {text("name.displayName", "displayName", "Display name", {
            placeholder: [state.names, state.lastName].filter(Boolean).join(" ") || "Ana Pérez",
            hint: "Shown in channels; left empty, it is made from the names.",
          })}
        </div>
      </Card>

      <Card className="p-5 sm:p-6">
        <h2 className="mb-4 text-base font-semibold text-slate-900">Role and organisation</h2>
        <div className="grid gap-6 sm:grid-cols-2">
          <div className="flex flex-col gap-3">
            <CheckboxGroup
              id={inputId("accessRoles")}
              legend="Access roles"
              hint="At least one."
              records={roles.data}
              value={state.accessRoles}
              onChange={(value) => set("accessRoles", value)}
              error={errors.accessRoles}
              columns={2}
            />
            {losesAdmin && (
              <RevokeKeysChoice id={inputId("revokeKeys")} checked={revokeKeys} onChange={setRevokeKeys} />
            )}
          </div>
          <CheckboxGroup
            id={inputId("properties")}
            legend="Properties"
            records={properties.data}
            value={state.properties}
            onChange={(value) => set("properties", value)}
            error={errors.properties}
            columns={2}
          />
          <RecordSelect
            id={inputId("job")}
            label="Job title"
            empty="No job title"
            records={jobs.data}
            value={state.job}
            onChange={(value) => set("job", value)}
            error={errors.job}
          />
          <RecordSelect
            id={inputId("bot")}
            label="Bot"
            empty="Not a bot"
            records={bots.data}
            value={state.bot}
            onChange={(value) => set("bot", value)}
            error={errors.bot}
          />
        </div>
      </Card>

      {user && (
        <Card className="p-5 sm:p-6">
          <h2 className="mb-4 text-base font-semibold text-slate-900">Reporting lines</h2>
          <div className="grid gap-4 sm:grid-cols-3">
            {RELATIONS.map(({ key, label }) => {
              const field = `companies.0.hierarchy.${key}` as const;
              return (
                <UsersPicker
                  key={key}
                  id={inputId(field)}
                  label={label}
                  value={state.hierarchy[key]}
                  onChange={(ids) => set("hierarchy", { ...state.hierarchy, [key]: ids })}
                  exclude={[user._id]}
                  error={errors[field]}
                />
              );
            })}
          </div>
        </Card>
      )}

      <Card className="p-5 sm:p-6">
        <h2 className="mb-4 text-base font-semibold text-slate-900">Extensions</h2>
        <Field
          id={inputId("extensions")}
          label="Extra data (JSON object)"
          error={errors.extensions}
          hint="Free-form data of other systems, stored as given: at most 16 KiB, keys without a leading $ or a dot."
        >
          <textarea
            id={inputId("extensions")}
            value={state.extensions}
            onChange={(event) => set("extensions", event.target.value)}
            rows={Math.min(12, Math.max(3, state.extensions.split("\n").length))}
            spellCheck={false}
            {...describedBy(inputId("extensions"), errors.extensions, true)}
            className={`${inputClass} font-mono text-xs`}
          />
        </Field>
      </Card>

      <Card className="p-5 sm:p-6">
        <h2 className="mb-4 text-base font-semibold text-slate-900">Password</h2>
        <div className="grid gap-4 sm:grid-cols-2">
          {text("password", "password", editing ? "New password" : "Password", {
            type: "password",
            autoComplete: "new-password",
            hint: editing
              ? "Leave empty to keep the current password."
              : "At least 8 characters. Or leave empty and send an invitation.",
          })}
          {!editing && (
            <div className="flex items-start gap-2 pt-7">
              <Checkbox
                id="user-notifyEmail"
                checked={state.notifyEmail && !state.password}
                disabled={Boolean(state.password)}
                onChange={(event) => set("notifyEmail", event.target.checked)}
                className="mt-0.5"
              />
              <label htmlFor="user-notifyEmail" className="text-sm text-slate-800">
                Send an invitation e-mail with a link to set a password
                <span className="block text-xs text-slate-500">Only without a password.</span>
              </label>
            </div>
          )}
        </div>
      </Card>

      {formError !== undefined && (
        <ErrorMessage
          error={formError}
          title={editing ? "The user could not be saved" : "The user could not be created"}
        />
      )}
      {conflicts.conflict && (
        <EditConflict
          conflict={conflicts.conflict}
          what="user"
          busy={busy}
          onReload={conflicts.reload}
          onOverwrite={() => void submit()}
        />
      )}

      <div className={`flex flex-wrap justify-end gap-3 ${conflicts.conflict ? "hidden" : ""}`}>
        <LinkButton href={user ? `/users/${user._id}` : "/users"}>Cancel</LinkButton>
        <Button type="submit" kind="primary" disabled={busy || !hydrated}>
          {busy ? "Saving…" : editing ? "Save changes" : "Create user"}
        </Button>
      </div>
    </form>
  );
}
