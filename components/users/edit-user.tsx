"use client";

import { ErrorState } from "@/components/ui/error-state";
import { displayName, useUserToEdit } from "@/lib/client/users";
import { BackLink, Loading, PageHeader } from "../ui";
import { UserForm } from "./user-form";

export function EditUser({ id }: { id: string }) {
  const edit = useUserToEdit(id);
  const user = edit.data?.body;
  const back = <BackLink href={`/users/${id}`}>{user ? displayName(user) : "User"}</BackLink>;
  if (edit.isLoading) return <Loading label="Loading the user…" />;
  return (
    <div className="mx-auto max-w-4xl">
      <PageHeader title={user ? `Edit ${displayName(user)}` : "Edit user"} subtitle={user?.email} back={back} />
      {/* A new tag (a reload after a conflict) starts the form again from that version. */}
      {edit.data && user ? (
        <UserForm key={edit.data.etag} user={user} etag={edit.data.etag} />
      ) : (
        <ErrorState
          error={edit.error}
          title="The user could not be loaded"
          onRetry={() => edit.refetch()}
          retrying={edit.isFetching}
        />
      )}
    </div>
  );
}
