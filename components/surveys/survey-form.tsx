"use client";

import { ErrorMessage } from "@/components/ui/error-message";
import { useToast } from "@/components/ui/toast";
import { feedback, focusHeadingAfterNavigation } from "@/lib/client/feedback";
import {
  focusFirstError,
  plainIssue,
  serverFieldErrors,
  zodFieldErrors,
  type FieldErrors,
  type FieldTexts,
} from "@/lib/client/form-errors";
import { useReference } from "@/lib/client/reference";
import {
  fetchSurveyToEdit,
  surveyKeys,
  surveyLastSavedBy,
  useCodeTaken,
  useCreateSurvey,
  useUpdateSurvey,
  type CreateSurveyInput,
  type UpdateSurveyInput,
} from "@/lib/client/surveys";
import { useDebouncedValue } from "@/lib/client/use-debounced-value";
import { useForm } from "@/lib/client/use-form";
import { useHydrated } from "@/lib/client/use-hydrated";
import {
  CreateSurveyBody,
  MAX_SURVEY_CODE,
  SurveyCode,
  UpdateSurveyBody,
  type SurveyRecord,
} from "@/lib/resources/surveys/contract";
import { PrefetchKind } from "next/dist/client/components/router-reducer/router-reducer-types";
import { useRouter } from "next/navigation";
import { useEffect, type FormEvent } from "react";
import { EditConflict, isStale, useEditConflict } from "../edit-conflict";
import { LeaveGuard } from "../leave-guard";
import { Button, Card, Checkbox, CheckboxGroup, Field, LinkButton, Spinner, describedBy, inputClass } from "../ui";

const FIELDS = [
  "code",
  "name",
  "version",
  "isActive",
  "permissions",
  "group",
  "groupPermissions",
  "permissionsV2",
  "groupPermissionsV2",
  "onlySubSurvey",
] as const;
const inputId = (field: string) => `survey-${field}`;

/** How the messages next to the fields speak of them. */
const TEXTS: FieldTexts = {
  code: { noun: "a code", rule: `At most ${MAX_SURVEY_CODE} characters: lowercase letters, digits and _.` },
  name: { noun: "the survey's name" },
};

type PermissionV2 = SurveyRecord["permissionsV2"][number];
type GroupV2 = SurveyRecord["groupPermissionsV2"][number];

interface FormState {
  code: string;
  name: string;
  version: 1 | 2;
  isActive: boolean;
  permissions: string[];
  group: string;
  groupPermissions: string[];
  permissionsV2: PermissionV2[];
  groupPermissionsV2: GroupV2[];
  onlySubSurvey: boolean;
}

function initialState(survey?: SurveyRecord): FormState {
  return {
    code: survey?.code ?? "",
    name: survey?.name ?? "",
    version: survey?.version ?? 2,
    isActive: survey?.isActive ?? true,
    permissions: survey?.permissions ?? [],
    group: survey?.group ?? "",
    groupPermissions: survey?.groupPermissions ?? [],
    permissionsV2: survey?.permissionsV2 ?? [],
    groupPermissionsV2: survey?.groupPermissionsV2 ?? [],
    onlySubSurvey: survey?.onlySubSurvey ?? false,
  };
}

/** The fields a survey's form writes: those of the permission model in force. */
function written(state: FormState) {
  const common = { code: state.code, name: state.name, isActive: state.isActive };
  return state.version === 1
    ? {
        ...common,
        permissions: state.permissions,
        group: state.group.trim() || null,
        groupPermissions: state.groupPermissions,
      }
    : {
        ...common,
        permissionsV2: state.permissionsV2,
        groupPermissionsV2: state.groupPermissionsV2,
        onlySubSurvey: state.onlySubSurvey,
      };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Live check of a code: its rule at once, then (after a pause) whether another survey has it. */
function useCodeCheck(code: string, exceptId?: string) {
  const debounced = useDebouncedValue(code, 300);
  const rule = code === "" ? undefined : SurveyCode.safeParse(code);
  const ruleError = rule && !rule.success ? plainIssue(rule.error.issues[0]!, TEXTS.code) : undefined;
  const taken = useCodeTaken(!ruleError && debounced === code ? code : "", exceptId);
  return {
    ruleError,
    checking: Boolean(code) && !ruleError && (debounced !== code || taken.isFetching),
    taken: !ruleError && debounced === code && taken.data === true,
    free: !ruleError && debounced === code && taken.data === false,
  };
}

/** How the conflict panel names the fields it compares. */
const LABELS: Record<string, string> = {
  code: "Code",
  name: "Name",
  isActive: "Active",
  permissions: "Roles that may answer",
  group: "Group",
  groupPermissions: "Roles of the group",
  permissionsV2: "Roles and what they may do",
  groupPermissionsV2: "Groups",
  onlySubSurvey: "Only as a sub-survey",
};

/**
 * `survey` is the version the edit starts from and `etag` its tag: the save sends it in
 * `If-Match`, so a version saved meanwhile by someone else is never overwritten unseen.
 */
export function SurveyForm({ survey, etag }: { survey?: SurveyRecord; etag?: string }) {
  const router = useRouter();
  const hydrated = useHydrated();
  const { state, set, errors, setErrors, formError, setFormError, fail, dirty } = useForm(
    () => initialState(survey),
    FIELDS,
    inputId,
  );
  const toast = useToast();
  const create = useCreateSurvey();
  // Every survey's page runs the same code: fetching one that does not exist while the form is
  // filled loads it, so the new survey's page waits only for its own answer after the create
  // (docs/architecture.md#the-admin-pages).
  useEffect(() => {
    if (!survey) router.prefetch(`/surveys/${"0".repeat(24)}`, { kind: PrefetchKind.FULL });
  }, [router, survey]);
  const update = useUpdateSurvey(survey?._id ?? "");
  const busy = create.isPending || update.isPending;
  const roles = useReference("accessRoles");
  const code = useCodeCheck(state.code, survey?._id);
  const codeUnchanged = survey !== undefined && state.code === survey.code;
  const codeError = code.ruleError
    ? code.ruleError
    : code.taken && !codeUnchanged
      ? "Another survey of the company already uses this code."
      : errors.code;

  const roleName = (id: string) => roles.data?.find((role) => role._id === id)?.name ?? id;
  const format = (field: string, value: unknown): string => {
    if (typeof value === "boolean") return value ? "Yes" : "No";
    if (value === null || value === undefined || value === "") return "—";
    if (field === "permissions" || field === "groupPermissions")
      return (value as string[]).map(roleName).join(", ") || "—";
    if (field === "permissionsV2") {
      const entries = value as PermissionV2[];
      return (
        entries
          .map(
            (p) =>
              `${roleName(p.accessRole)}: ${[p.canAnswer && "answer", p.canViewAnswers && "view answers"].filter(Boolean).join(", ")}`,
          )
          .join("; ") || "—"
      );
    }
    if (field === "groupPermissionsV2")
      return (value as GroupV2[]).map((g) => `${g.group}: ${g.accessRoles.map(roleName).join(", ")}`).join("; ") || "—";
    return String(value);
  };

  const conflicts = useEditConflict({
    editKey: surveyKeys.edit(survey?._id),
    etag,
    load: () => fetchSurveyToEdit(survey!._id),
    fields: (record: SurveyRecord) => written(initialState(record)),
    labels: LABELS,
    format,
    savedBy: () => surveyLastSavedBy(survey!._id),
  });

  /**
   * `tag` is the version the save applies to; `retry` lets a refused save that differs from the
   * saved version in no field of this form (only in bookkeeping) go through once without asking.
   */
  async function submit(event?: FormEvent, tag = conflicts.tag, retry = true) {
    event?.preventDefault();
    setFormError(undefined);
    if (code.ruleError || (code.taken && !codeUnchanged)) return focusFirstError({ code: "x" }, FIELDS, inputId);
    try {
      if (survey) {
        const before = written(initialState(survey));
        const after = written(state);
        const body = Object.fromEntries(
          Object.entries(after).filter(([key, value]) => !same(value, before[key as keyof typeof before])),
        ) as UpdateSurveyInput;
        const checked = UpdateSurveyBody.safeParse(body);
        if (!checked.success) return fail(zodFieldErrors(checked.error, FIELDS, TEXTS, body).fields);
        setErrors({});
        const changed = Object.keys(body).length > 0;
        if (changed) {
          // Overwriting sends the tag of the version the conflict showed: it applies only if
          // nobody saved again since.
          const saved = await update.mutateAsync({ body, ifMatch: tag });
          conflicts.clear();
          toast.show({ message: `${feedback.saved("survey")} It is now at revision ${saved.__v}.` });
        } else {
          toast.show({ message: feedback.unchanged("survey"), tone: "info" });
        }
        focusHeadingAfterNavigation();
        router.push(`/surveys/${survey._id}`);
      } else {
        const body: CreateSurveyInput = { ...written(state), version: state.version };
        const checked = CreateSurveyBody.safeParse(body);
        if (!checked.success) return fail(zodFieldErrors(checked.error, FIELDS, TEXTS, body).fields);
        setErrors({});
        const created = await create.mutateAsync(body);
        toast.show({ message: feedback.created("survey") });
        focusHeadingAfterNavigation();
        router.push(`/surveys/${created._id}`);
      }
    } catch (error) {
      if (survey && isStale(error)) {
        const again = await conflicts
          .refused(survey, written(state))
          .catch((reading: unknown) => void fail({}, reading));
        if (again && retry) await submit(undefined, again, false);
        return;
      }
      fail(serverFieldErrors(error, FIELDS, TEXTS).fields, error);
    }
  }

  const codeId = inputId("code");
  return (
    <form onSubmit={submit} noValidate className="flex flex-col gap-6">
      <LeaveGuard when={dirty && !busy} />
      <Card className="p-5 sm:p-6">
        <h2 className="mb-4 text-base font-semibold text-slate-900">Survey</h2>
        <div className="grid gap-4 sm:grid-cols-2">
          <Field
            id={codeId}
            label="Code"
            error={codeError}
            hint="Lowercase letters a-z, digits and underscore; at most 60; unique in the company."
          >
            <div className="relative">
              <input
                id={codeId}
                value={state.code}
                onChange={(event) => set("code", event.target.value)}
                autoComplete="off"
                spellCheck={false}
                placeholder="onboarding_2026"
                maxLength={80}
                {...describedBy(codeId, codeError, true)}
                className={`${inputClass} pr-28 font-mono`}
              />
              <span
                aria-live="polite"
                className="pointer-events-none absolute inset-y-0 right-3 flex items-center gap-1 text-xs"
              >
                {code.checking && (
                  <span className="flex items-center gap-1 text-slate-500">
                    <Spinner className="size-3" /> checking
                  </span>
                )}
                {!code.checking && code.free && <span className="text-emerald-700">✓ available</span>}
                {!code.checking && codeUnchanged && code.taken && <span className="text-slate-500">current code</span>}
              </span>
            </div>
          </Field>
          <Field id={inputId("name")} label="Name" error={errors.name} hint="Shown in the administrative panel.">
            <input
              id={inputId("name")}
              value={state.name}
              onChange={(event) => set("name", event.target.value)}
              autoComplete="off"
              placeholder="Onboarding 2026"
              {...describedBy(inputId("name"), errors.name, true)}
              className={inputClass}
            />
          </Field>
          {survey ? (
            <p className="text-sm text-slate-600 sm:col-span-2">
              Permission model: <strong>version {survey.version}</strong>
              {survey.version === 1 &&
                " — use “Upgrade to version 2” on the survey’s page to move it to the newer model."}
            </p>
          ) : (
            <fieldset className="sm:col-span-2">
              <legend className="text-sm font-medium text-slate-800">Permission model</legend>
              <div className="mt-2 flex flex-wrap gap-3">
                {([2, 1] as const).map((version) => (
                  <label
                    key={version}
                    className={`flex cursor-pointer items-start gap-2 rounded-md border border-slate-300 px-3 py-2 text-sm has-[:checked]:border-sky-600 has-[:checked]:bg-sky-50`}
                  >
                    <input
                      type="radio"
                      name="version"
                      id={version === 2 ? inputId("version") : undefined}
                      checked={state.version === version}
                      onChange={() => set("version", version)}
                      className="mt-0.5 accent-sky-700"
                    />
                    <span>
                      <span className="font-medium">Version {version}</span>
                      <span className="block text-xs text-slate-600">
                        {version === 2
                          ? "permissionsV2, group permissions, sub-surveys"
                          : "permissions, one group (before 2019)"}
                      </span>
                    </span>
                  </label>
                ))}
              </div>
            </fieldset>
          )}
          <div className="flex items-center gap-2 sm:col-span-2">
            <Checkbox
              id={inputId("isActive")}
              checked={state.isActive}
              onChange={(event) => set("isActive", event.target.checked)}
            />
            <label htmlFor={inputId("isActive")} className="text-sm text-slate-800">
              Active
            </label>
          </div>
        </div>
      </Card>

      <Card className="p-5 sm:p-6">
        <h2 className="mb-1 text-base font-semibold text-slate-900">Permissions (version {state.version})</h2>
        <p className="mb-4 text-sm text-slate-600">Which access roles reach the survey.</p>
        {!roles.data ? (
          <p className="text-sm text-slate-500">Loading access roles…</p>
        ) : state.version === 1 ? (
          <div className="grid gap-6 sm:grid-cols-2">
            <CheckboxGroup
              id={inputId("permissions")}
              legend="Roles that may answer"
              records={roles.data}
              value={state.permissions}
              onChange={(value) => set("permissions", value)}
              error={errors.permissions}
            />
            <div className="flex flex-col gap-4">
              <Field
                id={inputId("group")}
                label="Group"
                error={errors.group}
                hint="Optional: one named group (version 1 holds one)."
              >
                <input
                  id={inputId("group")}
                  value={state.group}
                  onChange={(event) => set("group", event.target.value)}
                  {...describedBy(inputId("group"), errors.group, true)}
                  className={inputClass}
                />
              </Field>
              <CheckboxGroup
                id={inputId("groupPermissions")}
                legend="Roles of the group"
                records={roles.data}
                value={state.groupPermissions}
                onChange={(value) => set("groupPermissions", value)}
                error={errors.groupPermissions}
              />
            </div>
          </div>
        ) : (
          <PermissionsV2Editor state={state} set={set} roles={roles.data} errors={errors} />
        )}
      </Card>

      {formError !== undefined && (
        <ErrorMessage
          error={formError}
          title={survey ? "The survey could not be saved" : "The survey could not be created"}
        />
      )}
      {conflicts.conflict && (
        <EditConflict
          conflict={conflicts.conflict}
          what="survey"
          busy={busy}
          onReload={conflicts.reload}
          onOverwrite={() => void submit()}
        />
      )}
      <div className={`flex flex-wrap justify-end gap-3 ${conflicts.conflict ? "hidden" : ""}`}>
        <LinkButton href={survey ? `/surveys/${survey._id}` : "/surveys"}>Cancel</LinkButton>
        <Button
          type="submit"
          kind="primary"
          disabled={busy || !hydrated || Boolean(code.ruleError) || (code.taken && !codeUnchanged)}
        >
          {busy ? "Saving…" : survey ? "Save changes" : "Create survey"}
        </Button>
      </div>
    </form>
  );
}

function PermissionsV2Editor({
  state,
  set,
  roles,
  errors,
}: {
  state: FormState;
  set: <K extends keyof FormState>(key: K, value: FormState[K]) => void;
  roles: { _id: string; name: string }[];
  errors: FieldErrors;
}) {
  const entry = (role: string) => state.permissionsV2.find((p) => p.accessRole === role);
  function toggle(role: string, flag: "canAnswer" | "canViewAnswers", on: boolean) {
    const current = entry(role) ?? { accessRole: role, canAnswer: false, canViewAnswers: false };
    const next = { ...current, [flag]: on };
    const others = state.permissionsV2.filter((p) => p.accessRole !== role);
    // A role with neither right is simply not listed.
    set(
      "permissionsV2",
      next.canAnswer || next.canViewAnswers
        ? entry(role)
          ? state.permissionsV2.map((p) => (p.accessRole === role ? next : p))
          : [...others, next]
        : others,
    );
  }
  const groups = state.groupPermissionsV2;
  const setGroup = (index: number, group: GroupV2) =>
    set(
      "groupPermissionsV2",
      groups.map((g, i) => (i === index ? group : g)),
    );

  return (
    <div className="flex flex-col gap-6">
      <div>
        <table
          className="w-full max-w-xl text-left text-sm"
          id={inputId("permissionsV2")}
          aria-describedby={errors.permissionsV2 ? `${inputId("permissionsV2")}-error` : undefined}
        >
          <caption className="mb-2 text-left text-sm font-medium text-slate-800">Roles and what they may do</caption>
          <thead className="text-xs tracking-wide text-slate-500 uppercase">
            <tr>
              <th scope="col" className="py-1.5 pr-4">
                Access role
              </th>
              <th scope="col" className="px-4 py-1.5">
                Answer
              </th>
              <th scope="col" className="px-4 py-1.5">
                View answers
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {roles.map((role) => (
              <tr key={role._id}>
                <th scope="row" className="py-1.5 pr-4 font-normal text-slate-800">
                  {role.name}
                </th>
                {(["canAnswer", "canViewAnswers"] as const).map((flag) => (
                  <td key={flag} className="px-4 py-1.5">
                    <Checkbox
                      aria-label={`${role.name}: ${flag === "canAnswer" ? "may answer" : "may view answers"}`}
                      checked={entry(role._id)?.[flag] ?? false}
                      onChange={(event) => toggle(role._id, flag, event.target.checked)}
                    />
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
        {errors.permissionsV2 && (
          <p id={`${inputId("permissionsV2")}-error`} className="mt-1 text-sm text-rose-700">
            {errors.permissionsV2}
          </p>
        )}
      </div>

      <div className="flex flex-col gap-3">
        <p className="text-sm font-medium text-slate-800">Groups</p>
        {groups.length === 0 && <p className="text-sm text-slate-500">No group.</p>}
        {groups.map((group, index) => (
          <div key={index} className="grid gap-3 rounded-md border border-slate-200 p-3 sm:grid-cols-[14rem_1fr_auto]">
            <Field id={`${inputId("groupPermissionsV2")}-${index}`} label={`Group ${index + 1} name`}>
              <input
                id={`${inputId("groupPermissionsV2")}-${index}`}
                value={group.group}
                onChange={(event) => setGroup(index, { ...group, group: event.target.value })}
                className={inputClass}
              />
            </Field>
            <CheckboxGroup
              id={`group-${index}-roles`}
              legend="Roles of the group"
              records={roles}
              value={group.accessRoles}
              onChange={(accessRoles) => setGroup(index, { ...group, accessRoles })}
            />
            <div className="self-start pt-6">
              <Button
                kind="ghost"
                onClick={() =>
                  set(
                    "groupPermissionsV2",
                    groups.filter((_, i) => i !== index),
                  )
                }
              >
                Remove
              </Button>
            </div>
          </div>
        ))}
        {errors.groupPermissionsV2 && <p className="text-sm text-rose-700">{errors.groupPermissionsV2}</p>}
        <div>
          <Button
            onClick={() =>
              set("groupPermissionsV2", [...groups, { group: `group_${groups.length + 1}`, accessRoles: [] }])
            }
          >
            Add a group
          </Button>
        </div>
      </div>

      <div className="flex items-center gap-2">
        <Checkbox
          id={inputId("onlySubSurvey")}
          checked={state.onlySubSurvey}
          onChange={(event) => set("onlySubSurvey", event.target.checked)}
        />
        <label htmlFor={inputId("onlySubSurvey")} className="text-sm text-slate-800">
          Only as a sub-survey of another survey
        </label>
      </div>
    </div>
  );
}
