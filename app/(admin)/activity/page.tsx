import { ActivityPage } from "@/components/audit/activity-page";
import { Loading } from "@/components/ui";
import type { Metadata } from "next";
import { Suspense } from "react";

export const metadata: Metadata = { title: "Activity" };

export default function Page() {
  return (
    <Suspense fallback={<Loading label="Loading the activity…" />}>
      <ActivityPage />
    </Suspense>
  );
}
