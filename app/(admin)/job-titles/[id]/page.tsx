import { ReferenceRecordPage } from "@/components/reference/reference-record";
import type { Metadata } from "next";

export const metadata: Metadata = { title: "Job title" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  return <ReferenceRecordPage kind="jobTitles" id={(await params).id} />;
}
