import { newId, type ObjectId } from "@/lib/kernel/ids";
import { Notes } from "@/lib/kernel/notes";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { migratePermissions, warnDormantFields, type PermissionState } from "./survey-permissions";

const roles = Array.from({ length: 6 }, () => newId());

const state = (patch: Partial<PermissionState<ObjectId>> = {}): PermissionState<ObjectId> => ({
  permissions: [],
  group: null,
  groupPermissions: [],
  permissionsV2: [],
  groupPermissionsV2: [],
  onlySubSurvey: false,
  ...patch,
});

const none = new Set<string>();

describe("migratePermissions", () => {
  it("1 → 2: one answering entry per role, the group as one group entry", () => {
    const notes = new Notes();
    const derived = migratePermissions(
      state({ permissions: [roles[0], roles[1]], group: "Sales", groupPermissions: [roles[2]] }),
      1,
      2,
      none,
      notes,
    );
    expect(derived).toEqual({
      permissionsV2: [
        { accessRole: roles[0], canAnswer: true, canViewAnswers: false },
        { accessRole: roles[1], canAnswer: true, canViewAnswers: false },
      ],
      groupPermissionsV2: [{ group: "Sales", accessRoles: [roles[2]] }],
    });
    expect(notes.list.map((note) => note.code)).toEqual(["migrated"]);
  });

  it("1 → 2 keeps dormant view flags and view-only entries, drops roles no longer granted", () => {
    const derived = migratePermissions(
      state({
        permissions: [roles[0]],
        permissionsV2: [
          { accessRole: roles[0], canAnswer: true, canViewAnswers: true },
          { accessRole: roles[1], canAnswer: true, canViewAnswers: true },
          { accessRole: roles[2], canAnswer: false, canViewAnswers: true },
        ],
      }),
      1,
      2,
      none,
      new Notes(),
    );
    expect(derived.permissionsV2).toEqual([
      { accessRole: roles[0], canAnswer: true, canViewAnswers: true },
      { accessRole: roles[2], canAnswer: false, canViewAnswers: true },
    ]);
  });

  it("1 → 2 warns when groupPermissions have no group", () => {
    const notes = new Notes();
    expect(migratePermissions(state({ groupPermissions: [roles[0]] }), 1, 2, none, notes).groupPermissionsV2).toEqual(
      [],
    );
    expect(notes.list).toContainEqual(expect.objectContaining({ code: "migration_loss", path: "groupPermissions" }));
  });

  it("2 → 1: the answering roles and the first group, with a warning for each loss", () => {
    const notes = new Notes();
    const derived = migratePermissions(
      state({
        permissionsV2: [
          { accessRole: roles[1], canAnswer: true, canViewAnswers: true },
          { accessRole: roles[2], canAnswer: false, canViewAnswers: true },
          { accessRole: roles[0], canAnswer: true, canViewAnswers: false },
        ],
        groupPermissionsV2: [
          { group: "A", accessRoles: [roles[3]] },
          { group: "B", accessRoles: [roles[4]] },
        ],
        onlySubSurvey: true,
      }),
      2,
      1,
      none,
      notes,
    );
    expect(derived).toEqual({ permissions: [roles[1], roles[0]], group: "A", groupPermissions: [roles[3]] });
    expect(notes.list.filter((note) => note.code === "migration_loss").map((note) => note.path)).toEqual([
      "permissionsV2",
      "groupPermissionsV2",
      "onlySubSurvey",
    ]);
  });

  it("fields sent with the change are not derived; the same version derives nothing", () => {
    const sent = new Set(["permissionsV2"]);
    expect(Object.keys(migratePermissions(state({ permissions: [roles[0]] }), 1, 2, sent, new Notes()))).toEqual([
      "groupPermissionsV2",
    ]);
    expect(Object.keys(migratePermissions(state(), 2, 1, new Set(["group"]), new Notes()))).toEqual(["permissions"]);
    expect(migratePermissions(state({ permissions: [roles[0]] }), 1, 1, none, new Notes())).toEqual({});
  });

  it("a round trip 1 → 2 → 1 grants the same roles and group (property)", () => {
    const role = fc.constantFrom(...roles);
    fc.assert(
      fc.property(
        fc.uniqueArray(role),
        fc.option(fc.string({ minLength: 1, maxLength: 5 }), { nil: null }),
        fc.uniqueArray(role),
        (permissions, group, groupPermissions) => {
          const v1 = state({ permissions, group, groupPermissions: group === null ? [] : groupPermissions });
          const v2 = { ...v1, ...migratePermissions(v1, 1, 2, none, new Notes()) };
          const back = migratePermissions(v2, 2, 1, none, new Notes());
          expect(back).toEqual({ permissions, group, groupPermissions: v1.groupPermissions });
        },
      ),
    );
  });
});

describe("warnDormantFields", () => {
  it("names the fields of the other model", () => {
    const notes = new Notes();
    warnDormantFields(1, ["name", "permissions", "onlySubSurvey", "permissionsV2"], notes);
    expect(notes.list.map((note) => note.path)).toEqual(["onlySubSurvey", "permissionsV2"]);
    const v2 = new Notes();
    warnDormantFields(2, ["group", "permissionsV2"], v2);
    expect(v2.list.map((note) => note.path)).toEqual(["group"]);
  });
});
