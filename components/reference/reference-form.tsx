"use client";

import { ErrorMessage } from "@/components/ui/error-message";
import { useToast } from "@/components/ui/toast";
import { ApiError } from "@/lib/client/api";
import { feedback, focusHeadingAfterNavigation } from "@/lib/client/feedback";
import { serverFieldErrors, zodFieldErrors, type FieldErrors, type FieldTexts } from "@/lib/client/form-errors";
import {
  REFERENCE,
  useSaveReference,
  type ReferenceInput,
  type ReferenceKind,
  type ReferenceRecord,
} from "@/lib/client/reference";
import { useForm } from "@/lib/client/use-form";
import { useHydrated } from "@/lib/client/use-hydrated";
import {
  CreateAccessRoleBody,
  CreateNamedBody,
  UpdateAccessRoleBody,
  UpdateNamedBody,
} from "@/lib/resources/reference/schemas";
import { useRouter } from "next/navigation";
import type { FormEvent } from "react";
import { LeaveGuard } from "../leave-guard";
import { Button, Card, Checkbox, Field, LinkButton, describedBy, inputClass } from "../ui";

const FIELDS = ["name", "isAdmin"] as const;

/** The two rules a record can break on the server, said for a person. */
function conflictErrors(error: unknown, one: string): FieldErrors | undefined {
  if (!(error instanceof ApiError) || error.code !== "conflict") return undefined;
  const paths = new Set(error.details.map((detail) => detail.path));
  if (paths.has("isAdmin")) {
    return {
      isAdmin:
        "This is the last admin role that an active user holds: without it nobody could manage the company. Give another active user an admin role first.",
    };
  }
  if (paths.has("name")) return { name: `Another ${one} of the company already has this name.` };
  return undefined;
}

export function ReferenceForm({ kind, record }: { kind: ReferenceKind; record?: ReferenceRecord }) {
  const meta = REFERENCE[kind];
  const inputId = (field: string) => `${kind}-${field}`;
  const texts: FieldTexts = { name: { noun: `the ${meta.one}'s name` } };
  const router = useRouter();
  const hydrated = useHydrated();
  const toast = useToast();
  const save = useSaveReference(kind, record?._id);
  const initialAdmin = record !== undefined && "isAdmin" in record && record.isAdmin;
  const { state, set, errors, setErrors, formError, setFormError, fail, dirty } = useForm(
    () => ({ name: record?.name ?? "", isAdmin: initialAdmin }),
    FIELDS,
    inputId,
  );

  async function submit(event: FormEvent) {
    event.preventDefault();
    setFormError(undefined);
    const fields: ReferenceInput =
      kind === "accessRoles" ? { name: state.name, isAdmin: state.isAdmin } : { name: state.name };
    // An edit sends only what changed.
    const body = record
      ? (Object.fromEntries(
          Object.entries(fields).filter(([key, value]) => value !== (key === "isAdmin" ? initialAdmin : record.name)),
        ) as ReferenceInput)
      : fields;
    const schema =
      kind === "accessRoles"
        ? record
          ? UpdateAccessRoleBody
          : CreateAccessRoleBody
        : record
          ? UpdateNamedBody
          : CreateNamedBody;
    const checked = schema.safeParse(body);
    if (!checked.success) return fail(zodFieldErrors(checked.error, FIELDS, texts, body).fields);
    setErrors({});
    try {
      if (record && Object.keys(body).length === 0) {
        toast.show({ message: feedback.unchanged(meta.one), tone: "info" });
      } else {
        await save.mutateAsync(body);
        toast.show({ message: record ? feedback.saved(meta.one) : feedback.created(meta.one) });
      }
      focusHeadingAfterNavigation();
      router.push(meta.href);
    } catch (error) {
      const conflict = conflictErrors(error, meta.one);
      fail(conflict ?? serverFieldErrors(error, FIELDS, texts).fields, conflict ? undefined : error);
    }
  }

  const nameId = inputId("name");
  const adminId = inputId("isAdmin");
  return (
    <form onSubmit={submit} noValidate className="flex flex-col gap-6">
      <LeaveGuard when={dirty && !save.isPending} />
      <Card className="p-5 sm:p-6">
        <h2 className="mb-4 text-base font-semibold text-slate-900">
          {record ? `Edit the ${meta.one}` : `The new ${meta.one}`}
        </h2>
        <div className="grid max-w-xl gap-4">
          <Field
            id={nameId}
            label="Name"
            error={errors.name}
            hint="Up to 200 characters on one line; unique in the company."
          >
            <input
              id={nameId}
              value={state.name}
              onChange={(event) => set("name", event.target.value)}
              autoComplete="off"
              {...describedBy(nameId, errors.name, true)}
              className={inputClass}
            />
          </Field>
          {kind === "accessRoles" && (
            <div className="flex flex-col gap-1">
              <div className="flex items-start gap-2">
                <Checkbox
                  id={adminId}
                  checked={state.isAdmin}
                  onChange={(event) => set("isAdmin", event.target.checked)}
                  aria-invalid={errors.isAdmin ? true : undefined}
                  aria-describedby={errors.isAdmin ? `${adminId}-error` : `${adminId}-hint`}
                  className="mt-0.5"
                />
                <label htmlFor={adminId} className="text-sm font-medium text-slate-800">
                  Admin role
                </label>
              </div>
              {errors.isAdmin ? (
                <p id={`${adminId}-error`} className="text-sm text-rose-700">
                  {errors.isAdmin}
                </p>
              ) : (
                <p id={`${adminId}-hint`} className="text-xs text-slate-500">
                  Users holding it may create and change records. The company always keeps one admin role held by an
                  active user.
                </p>
              )}
            </div>
          )}
        </div>
      </Card>
      {formError !== undefined && (
        <ErrorMessage
          error={formError}
          title={record ? `The ${meta.one} could not be saved` : `The ${meta.one} could not be created`}
        />
      )}
      <div className="flex flex-wrap justify-end gap-3">
        <LinkButton href={meta.href}>Cancel</LinkButton>
        <Button type="submit" kind="primary" disabled={save.isPending || !hydrated}>
          {save.isPending ? "Saving…" : record ? "Save changes" : `Create ${meta.one}`}
        </Button>
      </div>
    </form>
  );
}
