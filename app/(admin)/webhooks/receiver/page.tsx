import type { Metadata } from "next";
import { TestReceiverPage } from "@/components/webhooks/test-receiver";

export const metadata: Metadata = { title: "Test receiver" };

export default function Page() {
  return <TestReceiverPage />;
}
