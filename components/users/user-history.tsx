"use client";

import { displayName, useUser } from "@/lib/client/users";
import { RecordHistory } from "../audit/record-history";
import { BackLink, PageHeader } from "../ui";
import { UserTabs } from "./user-tabs";

/** A user's History tab: who changed the user, and when they signed in and out. */
export function UserHistory({ id }: { id: string }) {
  const user = useUser(id);
  return (
    <>
      <PageHeader
        back={<BackLink href="/users">Users</BackLink>}
        title={user.data ? `History of ${displayName(user.data)}` : "User history"}
        subtitle={user.data?.email}
      />
      <UserTabs id={id} />
      <RecordHistory type="user" id={id} base={`/users/${id}/history`} />
    </>
  );
}
