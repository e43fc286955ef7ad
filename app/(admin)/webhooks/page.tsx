import { Loading } from "@/components/ui";
import { WebhooksPage } from "@/components/webhooks/webhook-list";
import type { Metadata } from "next";
import { Suspense } from "react";

export const metadata: Metadata = { title: "Webhooks" };

export default function Page() {
  return (
    <Suspense fallback={<Loading label="Loading the webhooks…" />}>
      <WebhooksPage />
    </Suspense>
  );
}
