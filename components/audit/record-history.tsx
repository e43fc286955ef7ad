"use client";

/**
 * The History tab of one record (a user, a survey): its own audit entries, newest first, each
 * opening its fields before and after (docs/api.md#audit-log). Admins only, as the log is.
 */
import { searchOf } from "@/lib/client/audit";
import type { ReactNode } from "react";
import { useIsAdmin } from "../admin-shell";
import { Card, EmptyState, Loading } from "../ui";
import { AuditEntries, NoEntries } from "./audit-entries";

export function RecordHistory({
  type,
  id,
  base,
  note,
}: {
  type: "user" | "survey";
  id: string;
  base: string;
  note?: ReactNode;
}) {
  const isAdmin = useIsAdmin();
  if (isAdmin === undefined) return <Loading label="Loading the history…" />;
  if (!isAdmin) {
    return (
      <Card>
        <EmptyState title="The history is for admins">
          Who changed this {type} and when is shown to users with an admin role.
        </EmptyState>
      </Card>
    );
  }
  const filters = { resourceType: type, resourceId: id };
  return (
    <>
      {note && <p className="mb-4 text-sm text-slate-600">{note}</p>}
      <AuditEntries
        filters={filters}
        showRecord={false}
        caption={`History of this ${type}, newest first; open an entry to see each field before and after`}
        hrefOf={(entry) => `${base}${searchOf({}, { entry: entry._id })}`}
        closeHref={base}
        empty={
          <NoEntries filtered={false}>
            Changes of this {type}
            {type === "user" ? ", and its sign-ins and sign-outs," : ""} appear here as they happen.
          </NoEntries>
        }
      />
    </>
  );
}
