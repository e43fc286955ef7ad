"use client";

import { ConfirmDialog } from "@/components/ui/dialog";
import { ErrorMessage } from "@/components/ui/error-message";
import { ErrorState } from "@/components/ui/error-state";
import { useToast } from "@/components/ui/toast";
import { feedback } from "@/lib/client/feedback";
import { useReferenceNames } from "@/lib/client/reference";
import { RELATIONS, displayName, useMe, useUpdateUser, useUser, useUsersById } from "@/lib/client/users";
import type { UserRecord } from "@/lib/resources/users/contract";
import Link from "next/link";
import { useState } from "react";
import { useIsAdmin } from "../admin-shell";
import { BreakAt } from "../break-text";
import {
  ActiveBadge,
  BackLink,
  Badge,
  Button,
  Card,
  DateTime,
  Facts,
  LinkButton,
  Loading,
  PageHeader,
  linkClass,
} from "../ui";
import { RevokeKeysChoice } from "./bulk-actions";
import { UserTabs } from "./user-tabs";

export function UserDetail({ id }: { id: string }) {
  const user = useUser(id);

  if (user.isLoading) return <Loading label="Loading the user…" />;
  if (user.isError || !user.data) {
    return (
      <>
        <PageHeader title="User" back={<BackLink href="/users">Users</BackLink>} />
        <ErrorState
          error={user.error}
          title="The user could not be loaded"
          notFoundTitle="This user does not exist"
          onRetry={() => user.refetch()}
          retrying={user.isFetching}
        />
      </>
    );
  }
  return <UserView user={user.data} />;
}

function UserView({ user }: { user: UserRecord }) {
  const roles = useReferenceNames("accessRoles");
  const jobs = useReferenceNames("jobTitles");
  const properties = useReferenceNames("properties");
  const bots = useReferenceNames("bots");
  const isAdmin = useIsAdmin();
  const me = useMe();
  const update = useUpdateUser(user._id);
  const [confirming, setConfirming] = useState(false);
  const [revokeKeys, setRevokeKeys] = useState(true);
  const toast = useToast();
  const self = me.data?._id === user._id;

  async function setActive(isActive: boolean, undoing = false) {
    setConfirming(false);
    try {
      await update.mutateAsync({ body: { isActive }, revokeKeys: isActive ? undefined : revokeKeys });
    } catch {
      // Shown below from the mutation's error.
      return;
    }
    if (isActive) {
      toast.show({ message: `${feedback.activated("user")} They can sign in again.` });
    } else {
      toast.show({
        message: `${feedback.deactivated("user")} They can no longer sign in.`,
        // Undo puts the user back through the API, as the Activate button would.
        action: undoing ? undefined : { label: "Undo", onClick: () => setActive(true, true) },
      });
    }
  }

  const names = (ids: string[], map: Map<string, string>) =>
    ids.length === 0 ? undefined : (
      <span className="flex flex-wrap gap-1">
        {ids.map((id) => (
          <Badge key={id} tone="blue">
            {map.get(id) ?? "…"}
          </Badge>
        ))}
      </span>
    );

  return (
    <>
      <PageHeader
        back={<BackLink href="/users">Users</BackLink>}
        title={
          <span className="flex flex-wrap items-center gap-3">
            {displayName(user)} <ActiveBadge active={user.isActive} />
          </span>
        }
        subtitle={<BreakAt text={user.email} />}
        actions={
          isAdmin && (
            <>
              <LinkButton href={`/users/${user._id}/edit`} kind="primary">
                Edit
              </LinkButton>
              {user.isActive ? (
                <Button
                  kind="danger"
                  onClick={() => (setRevokeKeys(true), setConfirming(true))}
                  disabled={update.isPending || self}
                  title={self ? "You cannot deactivate yourself" : undefined}
                >
                  Deactivate
                </Button>
              ) : (
                <Button onClick={() => setActive(true)} disabled={update.isPending}>
                  Activate
                </Button>
              )}
            </>
          )
        }
      />
      <UserTabs id={user._id} />

      {/* Asked in the one modal: the keys it may revoke cannot be given back (the deactivation itself has Undo). */}
      <ConfirmDialog
        open={confirming}
        title={`Deactivate ${displayName(user)}?`}
        confirmLabel="Yes, deactivate"
        danger
        onConfirm={() => setActive(false)}
        onCancel={() => setConfirming(false)}
      >
        <p className="mb-3">
          They will no longer be able to sign in, and leave the default list. You can undo this from the notice.
        </p>
        <RevokeKeysChoice id="deactivate-revoke-keys" checked={revokeKeys} onChange={setRevokeKeys} />
      </ConfirmDialog>
      {update.isError && (
        <div className="mb-4">
          <ErrorMessage error={update.error} title="The change was not saved" />
        </div>
      )}

      <div className="grid gap-6 lg:grid-cols-3">
        <Card className="p-5 sm:p-6 lg:col-span-2">
          <h2 className="mb-4 text-base font-semibold text-slate-900">Profile</h2>
          <Facts
            items={[
              ["Display name", user.name?.displayName],
              ["Names", user.name?.names],
              ["Last name", user.name?.lastName],
              ["Second last name", user.name?.secondLastName || undefined],
              ["E-mail", <BreakAt key="email" text={user.email} />],
              ["Phone", user.phone || undefined],
              ["Access roles", names(user.accessRoles, roles)],
              ["Job title", user.job ? (jobs.get(user.job) ?? "…") : undefined],
              ["Properties", names(user.properties, properties)],
              ["Bot", user.bot ? (bots.get(user.bot) ?? "…") : undefined],
              ["Online", user.isOnline ? "Yes" : "No"],
              ["Accepted the terms", user.termsConditions ? "Yes" : "No"],
            ]}
          />
        </Card>
        <Card className="p-5 sm:p-6 lg:self-start">
          <h2 className="mb-4 text-base font-semibold text-slate-900">Activity</h2>
          <Facts
            items={[
              ["Created", <DateTime key="c" value={user.createdAt} />],
              ["Modified", <DateTime key="m" value={user.modifiedAt} />],
              ["Last request", <DateTime key="l" value={user.lastRequestDate} />],
            ]}
          />
        </Card>
        <Hierarchy user={user} />
        {Object.keys(user.extensions).length > 0 && (
          <Card className="p-5 sm:p-6">
            <h2 className="mb-4 text-base font-semibold text-slate-900">Extensions</h2>
            <pre className="max-h-64 overflow-auto rounded bg-slate-50 p-3 font-mono text-xs text-slate-800">
              {JSON.stringify(user.extensions, null, 2)}
            </pre>
          </Card>
        )}
      </div>
    </>
  );
}

function Hierarchy({ user }: { user: UserRecord }) {
  const hierarchy = user.companies[0]?.hierarchy ?? { boss: [], peers: [], subordinate: [] };
  const ids = [...hierarchy.boss, ...hierarchy.peers, ...hierarchy.subordinate];
  const people = useUsersById(ids);
  const list = (label: string, group: string[]) => (
    <div key={label}>
      <h3 className="text-xs font-medium tracking-wide text-slate-500 uppercase">{label}</h3>
      {group.length === 0 ? (
        <p className="mt-1 text-sm text-slate-500">None</p>
      ) : (
        <ul className="mt-1 flex flex-col gap-1 text-sm">
          {group.map((id) => {
            const person = people.data?.get(id);
            return (
              <li key={id}>
                <Link href={`/users/${id}`} className={linkClass}>
                  {person ? displayName(person) : people.isLoading ? "…" : id}
                </Link>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
  return (
    <Card className="p-5 sm:p-6 lg:col-span-2" aria-labelledby="user-reporting-lines">
      <div className="mb-4 flex flex-wrap items-center justify-between gap-2">
        <h2 id="user-reporting-lines" className="text-base font-semibold text-slate-900">
          Reporting lines
        </h2>
        {ids.length > 0 && (
          <Link href={`/users?relatedUser=${user._id}&isActive=all`} className={`text-sm ${linkClass}`}>
            Show related users in the list
          </Link>
        )}
      </div>
      <div className="grid gap-4 sm:grid-cols-3">{RELATIONS.map(({ key, label }) => list(label, hierarchy[key]))}</div>
    </Card>
  );
}
