"use client";

import { displayName, useUser } from "@/lib/client/users";
import { ErrorState } from "../error-state";
import { BackLink, Loading, PageHeader } from "../ui";
import { UserForm } from "./user-form";

export function EditUser({ id }: { id: string }) {
  const user = useUser(id);
  const back = <BackLink href={`/users/${id}`}>{user.data ? displayName(user.data) : "User"}</BackLink>;
  if (user.isLoading) return <Loading label="Loading the user…" />;
  return (
    <div className="mx-auto max-w-4xl">
      <PageHeader title={user.data ? `Edit ${displayName(user.data)}` : "Edit user"} subtitle={user.data?.email} back={back} />
      {user.data ? <UserForm key={user.data.modifiedAt} user={user.data} /> : <ErrorState error={user.error} title="The user could not be loaded" onRetry={() => user.refetch()} retrying={user.isFetching} />}
    </div>
  );
}
