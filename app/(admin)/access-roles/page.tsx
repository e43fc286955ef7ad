import type { Metadata } from "next";
import { ReferenceListPage } from "@/components/reference/reference-list";

export const metadata: Metadata = { title: "Access roles" };

export default function Page() {
  return <ReferenceListPage kind="accessRoles" />;
}
