"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import type { ReactNode } from "react";
import { useReferenceNames } from "@/lib/client/reference";
import { useSurvey } from "@/lib/client/surveys";
import type { SurveyRecord } from "@/lib/surveys/contract";
import { useIsAdmin } from "../admin-shell";
import { ErrorState } from "../error-state";
import { BackLink, Badge, Loading, PageHeader, focusRing } from "../ui";

export function VersionBadge({ version }: { version: number }) {
  return <Badge tone={version === 2 ? "violet" : "amber"}>Version {version}</Badge>;
}

/** Names for the ids a survey holds: access roles and properties (users show as ids). */
export function useSurveyNames() {
  const roles = useReferenceNames("accessRoles");
  const properties = useReferenceNames("properties");
  return { roles, properties };
}
export type SurveyNames = ReturnType<typeof useSurveyNames>;

const ROLE_FIELDS = new Set(["permissions", "groupPermissions"]);
const PROPERTY_FIELDS = new Set(["propertiesChannel", "propertiesLimit"]);

const name = (map: Map<string, string>, id: string) => map.get(id) ?? `#${id.slice(-6)}`;

/** One field of a survey as a line of text, with names in place of ids where they are known. */
export function fieldText(field: string, value: unknown, names: SurveyNames): string {
  if (value === undefined) return "—";
  if (value === null) return "none";
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (Array.isArray(value)) {
    if (value.length === 0) return "none";
    if (ROLE_FIELDS.has(field)) return (value as string[]).map((id) => name(names.roles, id)).join(", ");
    if (PROPERTY_FIELDS.has(field)) return (value as string[]).map((id) => name(names.properties, id)).join(", ");
    if (field === "permissionsV2") {
      return (value as SurveyRecord["permissionsV2"])
        .map((p) => `${name(names.roles, p.accessRole)} (${[p.canAnswer && "answer", p.canViewAnswers && "view answers"].filter(Boolean).join(", ") || "no access"})`)
        .join("; ");
    }
    if (field === "groupPermissionsV2") {
      return (value as SurveyRecord["groupPermissionsV2"])
        .map((g) => `${g.group}: ${g.accessRoles.map((id) => name(names.roles, id)).join(", ") || "no role"}`)
        .join("; ");
    }
    return value.map((item) => (typeof item === "string" ? item : JSON.stringify(item))).join(", ");
  }
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** Field labels people read, in the order a survey is shown. */
export const SURVEY_FIELD_LABELS: [keyof SurveyRecord, string][] = [
  ["name", "Name"],
  ["code", "Code"],
  ["version", "Version"],
  ["isActive", "Active"],
  ["isSystemModel", "System model"],
  ["permissions", "Permissions (v1)"],
  ["group", "Group (v1)"],
  ["groupPermissions", "Group permissions (v1)"],
  ["permissionsV2", "Permissions (v2)"],
  ["groupPermissionsV2", "Group permissions (v2)"],
  ["onlySubSurvey", "Only as sub-survey (v2)"],
  ["propertiesChannel", "Channel properties"],
  ["propertiesLimit", "Limit properties"],
  ["responders", "Responders"],
  ["modifiedAt", "Modified"],
  ["__v", "Revision"],
];

/** The views of one survey, one tab each; the page at hand is marked as current. */
const SURVEY_TABS = [
  { path: "", label: "Overview" },
  { path: "/questions", label: "Questions" },
  { path: "/preview", label: "Preview" },
  { path: "/results", label: "Results" },
  { path: "/answers", label: "Answers" },
  // The audit log is the admins' (docs/api.md#audit-log).
  { path: "/activity", label: "History", adminOnly: true },
] as const;

export function SurveyTabs({ id }: { id: string }) {
  const pathname = usePathname();
  const isAdmin = useIsAdmin();
  return (
    <nav aria-label="Survey" className="-mt-2 mb-6 overflow-x-auto border-b border-slate-200">
      <ul className="flex min-w-max gap-1">
        {SURVEY_TABS.filter((tab) => !("adminOnly" in tab) || isAdmin).map((tab) => {
          const href = `/surveys/${id}${tab.path}`;
          const current = pathname === href;
          return (
            <li key={tab.label}>
              <Link
                href={href}
                aria-current={current ? "page" : undefined}
                className={`-mb-px block border-b-2 px-3 py-2 text-sm font-medium ${focusRing} ${
                  current ? "border-sky-700 text-sky-800" : "border-transparent text-slate-600 hover:border-slate-300 hover:text-slate-900"
                }`}
              >
                {tab.label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

/**
 * A tab of one survey that needs its chats: the header and tabs at once, then `children` with the
 * full record (keyed by its revision, so a saved change starts the tab afresh).
 */
export function SurveyTabPage({
  id,
  title,
  subtitle,
  loading,
  children,
}: {
  id: string;
  title: (name: string | undefined) => string;
  subtitle: string;
  loading: string;
  children: (survey: SurveyRecord) => ReactNode;
}) {
  const survey = useSurvey(id);
  const ready = survey.data && !survey.isPlaceholderData;
  return (
    <>
      <PageHeader back={<BackLink href="/surveys">Surveys</BackLink>} title={title(survey.data?.name)} subtitle={subtitle} />
      <SurveyTabs id={id} />
      {ready ? (
        <div key={survey.data!.__v}>{children(survey.data!)}</div>
      ) : survey.isLoading || survey.isPlaceholderData ? (
        <Loading label={loading} />
      ) : (
        <ErrorState error={survey.error} title="The survey could not be loaded" onRetry={() => survey.refetch()} retrying={survey.isFetching} />
      )}
    </>
  );
}
