import { ReferenceListPage } from "@/components/reference/reference-list";
import type { Metadata } from "next";

export const metadata: Metadata = { title: "Access roles" };

export default function Page() {
  return <ReferenceListPage kind="accessRoles" />;
}
