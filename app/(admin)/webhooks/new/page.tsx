import type { Metadata } from "next";
import { NewWebhookPage } from "@/components/webhooks/webhook-list";

export const metadata: Metadata = { title: "New webhook" };

export default function Page() {
  return <NewWebhookPage />;
}
