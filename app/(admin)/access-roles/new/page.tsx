import type { Metadata } from "next";
import { NewReferencePage } from "@/components/reference/reference-record";

export const metadata: Metadata = { title: "New access role" };

export default function Page() {
  return <NewReferencePage kind="accessRoles" />;
}
