/**
 * The two permission models of a survey (docs/api.md#permission-models) and the migration between them that
 * a change of `version` performs ("upgrade to version 2" on the admin pages).
 *
 * Both models' fields are always stored; `version` says which one is in force. A migration
 * rewrites the fields of the model that comes into force from those of the model that was in
 * force, so the survey grants the same access before and after; the old model's fields stay
 * stored as they were (dormant). Information the old model cannot express is taken from the new
 * model's dormant fields where it can be (the "view answers" flag of a role, `onlySubSurvey`);
 * what cannot be carried over is named in a debug warning.
 *
 *   version 1 → 2:
 *     permissionsV2      = one entry per role of `permissions`, canAnswer: true; canViewAnswers
 *                          is kept from a dormant entry of that role (else false); dormant entries
 *                          with canAnswer: false are kept (version 1 says nothing about them)
 *     groupPermissionsV2 = [{ group, accessRoles: groupPermissions }] when `group` is set, else []
 *                          (`groupPermissions` without a `group` cannot be carried: warning)
 *     onlySubSurvey      = unchanged (false unless set)
 *   version 2 → 1:
 *     permissions        = the roles of `permissionsV2` with canAnswer: true, in order
 *                          (view-only entries cannot be carried: warning)
 *     group, groupPermissions = the first entry of `groupPermissionsV2` (null and [] when none;
 *                          further groups cannot be carried: warning)
 *     `onlySubSurvey: true` has no version 1 counterpart: warning.
 *
 * Fields of the incoming model sent in the same PATCH are taken as sent, not derived.
 *
 * Pure and free of server code: the service applies it with stored ObjectIds, the admin pages
 * preview an upgrade with it on the ids of a survey record (both compare ids by their string).
 */
import { z } from "zod";

/** The permission model of a survey: version 1 or version 2. */
export const SurveyVersion = z.union([z.literal(1), z.literal(2)], { error: "must be 1 or 2" });
export type SurveyVersion = z.infer<typeof SurveyVersion>;

interface PermissionV2<Id> {
  accessRole: Id;
  canAnswer: boolean;
  canViewAnswers: boolean;
}

interface GroupPermissionV2<Id> {
  group: string;
  accessRoles: Id[];
}

/** The permission fields of both models; `Id` is an ObjectId where stored, a string in a record. */
export interface PermissionState<Id> {
  permissions: Id[];
  group: string | null;
  groupPermissions: Id[];
  permissionsV2: PermissionV2<Id>[];
  groupPermissionsV2: GroupPermissionV2<Id>[];
  onlySubSurvey: boolean;
}

/** Where the migration says what it did and what it could not carry over. */
export interface MigrationNotes {
  info(code: string, message: string, path?: string): void;
  warning(code: string, message: string, path?: string): void;
}

const V1_FIELDS = ["permissions", "group", "groupPermissions"] as const;
const V2_FIELDS = ["permissionsV2", "groupPermissionsV2", "onlySubSurvey"] as const;
type PermissionField = (typeof V1_FIELDS)[number] | (typeof V2_FIELDS)[number];

const fieldsOfVersion = (version: SurveyVersion): readonly PermissionField[] => (version === 1 ? V1_FIELDS : V2_FIELDS);

/**
 * The fields of the model `to` derived from `state` (already holding the PATCH's own values),
 * leaving out those the PATCH sent itself (`sent`).
 */
export function migratePermissions<Id>(
  state: PermissionState<Id>,
  from: SurveyVersion,
  to: SurveyVersion,
  sent: ReadonlySet<string>,
  notes: MigrationNotes,
): Partial<PermissionState<Id>> {
  if (from === to) return {};
  const derived: Partial<PermissionState<Id>> = {};
  if (to === 2) {
    if (!sent.has("permissionsV2")) {
      const dormant = new Map(state.permissionsV2.map((entry) => [String(entry.accessRole), entry]));
      const granted = new Set(state.permissions.map(String));
      derived.permissionsV2 = [
        ...state.permissions.map((accessRole) => ({
          accessRole,
          canAnswer: true,
          canViewAnswers: dormant.get(String(accessRole))?.canViewAnswers ?? false,
        })),
        ...state.permissionsV2.filter((entry) => !entry.canAnswer && !granted.has(String(entry.accessRole))),
      ];
    }
    if (!sent.has("groupPermissionsV2")) {
      derived.groupPermissionsV2 =
        state.group === null ? [] : [{ group: state.group, accessRoles: state.groupPermissions }];
      if (state.group === null && state.groupPermissions.length > 0) {
        notes.warning(
          "migration_loss",
          "groupPermissions without a group have no version 2 counterpart and were not carried into groupPermissionsV2.",
          "groupPermissions",
        );
      }
    }
    notes.info(
      "migrated",
      "The survey moved to version 2: permissionsV2 and groupPermissionsV2 were derived from the version 1 fields.",
      "version",
    );
  } else {
    if (!sent.has("permissions")) {
      derived.permissions = state.permissionsV2.filter((entry) => entry.canAnswer).map((entry) => entry.accessRole);
      const viewOnly = state.permissionsV2.filter((entry) => !entry.canAnswer).length;
      if (viewOnly > 0) {
        notes.warning(
          "migration_loss",
          `${viewOnly} permissionsV2 entries without canAnswer have no version 1 counterpart.`,
          "permissionsV2",
        );
      }
    }
    if (!sent.has("group") && !sent.has("groupPermissions")) {
      const [first, ...rest] = state.groupPermissionsV2;
      derived.group = first?.group ?? null;
      derived.groupPermissions = first?.accessRoles ?? [];
      if (rest.length > 0) {
        notes.warning(
          "migration_loss",
          `Version 1 holds one group: only "${first.group}" was carried into group and groupPermissions.`,
          "groupPermissionsV2",
        );
      }
    }
    if (state.onlySubSurvey)
      notes.warning("migration_loss", "onlySubSurvey has no version 1 counterpart.", "onlySubSurvey");
    notes.info(
      "migrated",
      "The survey moved to version 1: permissions, group and groupPermissions were derived from the version 2 fields.",
      "version",
    );
  }
  return derived;
}

/** A debug warning for each field sent that belongs to the model not in force. */
export function warnDormantFields(version: SurveyVersion, sent: Iterable<string>, notes: MigrationNotes): void {
  const other = fieldsOfVersion(version === 1 ? 2 : 1) as readonly string[];
  for (const field of sent) {
    if (other.includes(field)) {
      notes.warning(
        "dormant_field",
        `${field} belongs to the other permission model and has no effect while the survey is version ${version}.`,
        field,
      );
    }
  }
}
