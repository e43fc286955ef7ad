import { Loading } from "@/components/ui";
import { UserDetail } from "@/components/users/user-detail";
import type { Metadata } from "next";
import { Suspense } from "react";

export const metadata: Metadata = { title: "User" };

export default async function UserPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <Suspense fallback={<Loading label="Loading the user…" />}>
      <UserDetail id={id} />
    </Suspense>
  );
}
