import { ReferenceRecordPage } from "@/components/reference/reference-record";
import type { Metadata } from "next";

export const metadata: Metadata = { title: "Property" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  return <ReferenceRecordPage kind="properties" id={(await params).id} />;
}
