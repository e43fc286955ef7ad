import type { Metadata } from "next";
import { NewReferencePage } from "@/components/reference/reference-record";

export const metadata: Metadata = { title: "New property" };

export default function Page() {
  return <NewReferencePage kind="properties" />;
}
