import { TestReceiverPage } from "@/components/webhooks/test-receiver";
import type { Metadata } from "next";

export const metadata: Metadata = { title: "Test receiver" };

export default function Page() {
  return <TestReceiverPage />;
}
