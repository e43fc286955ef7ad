/**
 * The columns of the users CSV (docs/api.md#export), in one place for the export that writes them
 * and the import that reads them back (API-CONTRACT 10.2 and 10.3).
 *
 *   _id             the user's id
 *   email           the e-mail address (lowercase)
 *   firstName       name.names
 *   lastName        name.lastName
 *   secondLastName  name.secondLastName
 *   displayName     name.displayName
 *   phone           phone, empty when none
 *   isActive        `true` or `false`: whether the user is active in the caller's company
 *   accessRoles     the names of the access roles, joined by `;`
 *   jobTitle        the name of the job title, empty when none
 *   properties      the names of the properties, joined by `;`
 *   createdAt       ISO date-time
 *   modifiedAt      ISO date-time
 *
 * A reference whose record no longer exists is written as its id. A user without a name has the
 * four name columns empty. Cells that a spreadsheet would run as a formula are written with a
 * leading `'` (lib/base/shared/csv-cells.ts: `restoreCell` reads them back).
 */
import type { ReferenceNames } from "@/lib/resources/reference/names";
import type { UserRecord } from "./contract";

export const USER_COLUMNS = [
  "_id",
  "email",
  "firstName",
  "lastName",
  "secondLastName",
  "displayName",
  "phone",
  "isActive",
  "accessRoles",
  "jobTitle",
  "properties",
  "createdAt",
  "modifiedAt",
] as const;
type UserColumn = (typeof USER_COLUMNS)[number];

/** The columns the import reads: CSV column → the field it sets (`name.*` parts and the rest); docs/api.md#import lists them. */
export const IMPORT_COLUMNS: Record<string, string> = {
  email: "email",
  displayName: "name.displayName",
  firstName: "name.names",
  lastName: "name.lastName",
  secondLastName: "name.secondLastName",
  isActive: "isActive",
  accessRoles: "accessRoles",
  jobTitle: "job",
  phone: "phone",
};

/** The import page's template: the header row of every column the import reads, in that order. */
export const importTemplate = () => `${Object.keys(IMPORT_COLUMNS).join(",")}\r\n`;

/** What joins the names of a list column (`accessRoles`, `properties`). */
const LIST_SEPARATOR = ";";

/** The names a batch of records needs, to load before {@link userRow}. */
export const userReferences = (records: UserRecord[]) => ({
  accessRoles: records.flatMap((record) => record.accessRoles),
  jobTitles: records.flatMap((record) => (record.job ? [record.job] : [])),
  properties: records.flatMap((record) => record.properties),
});

/** A user's cells, by column. */
function userCells(record: UserRecord, names: ReferenceNames): Record<UserColumn, string> {
  return {
    _id: record._id,
    email: record.email,
    firstName: record.name?.names ?? "",
    lastName: record.name?.lastName ?? "",
    secondLastName: record.name?.secondLastName ?? "",
    displayName: record.name?.displayName ?? "",
    phone: record.phone ?? "",
    isActive: String(record.isActive),
    accessRoles: record.accessRoles.map((id) => names.name("accessRoles", id)).join(LIST_SEPARATOR),
    jobTitle: record.job ? names.name("jobTitles", record.job) : "",
    properties: record.properties.map((id) => names.name("properties", id)).join(LIST_SEPARATOR),
    createdAt: record.createdAt,
    modifiedAt: record.modifiedAt,
  };
}

/** A user's row, in the order of {@link USER_COLUMNS}. */
export const userRow = (record: UserRecord, names: ReferenceNames): string[] => {
  const cells = userCells(record, names);
  return USER_COLUMNS.map((column) => cells[column]);
};
