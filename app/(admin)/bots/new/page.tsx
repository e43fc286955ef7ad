import { NewReferencePage } from "@/components/reference/reference-record";
import type { Metadata } from "next";

export const metadata: Metadata = { title: "New bot" };

export default function Page() {
  return <NewReferencePage kind="bots" />;
}
