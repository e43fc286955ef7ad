import { Loading } from "@/components/ui";
import { UserHistory } from "@/components/users/user-history";
import type { Metadata } from "next";
import { Suspense } from "react";

export const metadata: Metadata = { title: "User history" };

export default async function UserHistoryPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <Suspense fallback={<Loading label="Loading the history…" />}>
      <UserHistory id={id} />
    </Suspense>
  );
}
