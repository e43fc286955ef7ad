import { Loading } from "@/components/ui";
import { WebhookPage } from "@/components/webhooks/webhook-page";
import type { Metadata } from "next";
import { Suspense } from "react";

export const metadata: Metadata = { title: "Webhook" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <Suspense fallback={<Loading label="Loading the webhook…" />}>
      <WebhookPage id={id} />
    </Suspense>
  );
}
