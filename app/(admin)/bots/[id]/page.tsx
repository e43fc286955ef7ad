import type { Metadata } from "next";
import { ReferenceRecordPage } from "@/components/reference/reference-record";

export const metadata: Metadata = { title: "Bot" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  return <ReferenceRecordPage kind="bots" id={(await params).id} />;
}
