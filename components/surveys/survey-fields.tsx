"use client";

/** How a survey's fields read on its pages: the version badge, names for ids, labels and values as text. */
import { useReferenceNames } from "@/lib/client/reference";
import type { SurveyRecord } from "@/lib/resources/surveys/contract";
import { Badge } from "../ui";

/** The survey's permission model (its `version`), named as such: a bare "Version 2" reads as a second edit. */
const PERMISSION_MODELS: Record<number, string> = {
  1: "Permission model version 1: permissions by access role and one group (surveys before 2019)",
  2: "Permission model version 2: answer and view rights per access role, group permissions, sub-surveys",
};

export function VersionBadge({ version }: { version: number }) {
  return (
    <Badge tone={version === 2 ? "violet" : "amber"} title={PERMISSION_MODELS[version]}>
      Permissions v{version}
    </Badge>
  );
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
        .map(
          (p) =>
            `${name(names.roles, p.accessRole)} (${[p.canAnswer && "answer", p.canViewAnswers && "view answers"].filter(Boolean).join(", ") || "no access"})`,
        )
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
