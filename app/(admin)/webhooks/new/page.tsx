import { Loading } from "@/components/ui";
import { NewWebhookPage } from "@/components/webhooks/webhook-list";
import type { Metadata } from "next";
import { Suspense } from "react";

export const metadata: Metadata = { title: "New webhook" };

export default function Page() {
  return (
    <Suspense fallback={<Loading label="Loading…" />}>
      <NewWebhookPage />
    </Suspense>
  );
}
