import { ReferenceRecordPage } from "@/components/reference/reference-record";
import type { Metadata } from "next";

export const metadata: Metadata = { title: "Access role" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  return <ReferenceRecordPage kind="accessRoles" id={(await params).id} />;
}
