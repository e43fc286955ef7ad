import { ReferenceListPage } from "@/components/reference/reference-list";
import type { Metadata } from "next";

export const metadata: Metadata = { title: "Bots" };

export default function Page() {
  return <ReferenceListPage kind="bots" />;
}
