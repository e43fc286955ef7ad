"use client";

import { ErrorState } from "@/components/ui/error-state";
import { REFERENCE, useHolders, useReferenceRecord, type ReferenceKind } from "@/lib/client/reference";
import { useIsAdmin } from "../admin-shell";
import { BackLink, Badge, Card, DateTime, Facts, Loading, PageHeader } from "../ui";
import { ReferenceForm } from "./reference-form";
import { HoldersCount } from "./reference-list";

/** A record of reference data: what it is, who holds it, and (for an admin) its edit form. */
export function ReferenceRecordPage({ kind, id }: { kind: ReferenceKind; id: string }) {
  const meta = REFERENCE[kind];
  const record = useReferenceRecord(kind, id);
  const holders = useHolders(kind, [id]);
  const isAdmin = useIsAdmin();
  const back = <BackLink href={meta.href}>{meta.title}</BackLink>;

  if (record.isLoading) return <Loading label={`Loading the ${meta.one}…`} />;
  if (!record.data) {
    return (
      <>
        <PageHeader title={meta.title} back={back} />
        <ErrorState
          error={record.error}
          title={`The ${meta.one} could not be loaded`}
          onRetry={() => record.refetch()}
          retrying={record.isFetching}
        />
      </>
    );
  }
  const data = record.data;
  const admin = "isAdmin" in data && data.isAdmin;
  return (
    <div className="mx-auto max-w-4xl">
      <PageHeader
        back={back}
        title={
          <span className="flex flex-wrap items-center gap-3">
            {data.name} {admin && <Badge tone="violet">Admin</Badge>}
          </span>
        }
        subtitle={
          isAdmin !== false &&
          `Rename it${kind === "accessRoles" ? " or change what it grants" : ""}: the users who hold it keep it.`
        }
      />
      <Card className="mb-6 p-5 sm:p-6">
        <Facts
          items={[
            ["Users holding it", <HoldersCount key="holders" kind={kind} id={id} count={holders.data?.get(id)} />],
            ...(kind === "accessRoles" ? ([["Admin role", admin ? "Yes" : "No"]] as [string, string][]) : []),
            ["Created", <DateTime key="created" value={data.createdAt} />],
            ["Modified", <DateTime key="modified" value={data.modifiedAt} />],
          ]}
        />
      </Card>
      {isAdmin !== false && <ReferenceForm key={data._id} kind={kind} record={data} />}
    </div>
  );
}

/** The page of a new record of `kind`. */
export function NewReferencePage({ kind }: { kind: ReferenceKind }) {
  const meta = REFERENCE[kind];
  return (
    <div className="mx-auto max-w-4xl">
      <PageHeader
        title={`New ${meta.one}`}
        subtitle="Checked as you save, with the same rules as the API."
        back={<BackLink href={meta.href}>{meta.title}</BackLink>}
      />
      <ReferenceForm kind={kind} />
    </div>
  );
}
