import { NewReferencePage } from "@/components/reference/reference-record";
import type { Metadata } from "next";

export const metadata: Metadata = { title: "New access role" };

export default function Page() {
  return <NewReferencePage kind="accessRoles" />;
}
