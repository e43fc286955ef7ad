import { ReferenceRecordPage } from "@/components/reference/reference-record";
import type { Metadata } from "next";

export const metadata: Metadata = { title: "Bot" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  return <ReferenceRecordPage kind="bots" id={(await params).id} />;
}
