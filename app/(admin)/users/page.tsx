import { Loading } from "@/components/ui";
import { UsersList } from "@/components/users/users-list";
import type { Metadata } from "next";
import { Suspense } from "react";

export const metadata: Metadata = { title: "Users" };

export default function UsersPage() {
  return (
    <Suspense fallback={<Loading label="Loading users…" />}>
      <UsersList />
    </Suspense>
  );
}
