import { OutboxList } from "@/components/outbox-list";
import { Loading } from "@/components/ui";
import type { Metadata } from "next";
import { Suspense } from "react";

export const metadata: Metadata = { title: "Outbox" };

export default function OutboxPage() {
  return (
    <Suspense fallback={<Loading label="Loading the outbox…" />}>
      <OutboxList />
    </Suspense>
  );
}
