import type { Metadata } from "next";
import { Suspense } from "react";
import { OutboxList } from "@/components/outbox-list";
import { Loading } from "@/components/ui";

export const metadata: Metadata = { title: "Outbox" };

export default function OutboxPage() {
  return (
    <Suspense fallback={<Loading label="Loading the outbox…" />}>
      <OutboxList />
    </Suspense>
  );
}
