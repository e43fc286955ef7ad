import type { Metadata } from "next";
import { Suspense } from "react";
import { Loading } from "@/components/ui";
import { NewWebhookPage } from "@/components/webhooks/webhook-list";

export const metadata: Metadata = { title: "New webhook" };

export default function Page() {
  return (
    <Suspense fallback={<Loading label="Loading…" />}>
      <NewWebhookPage />
    </Suspense>
  );
}
