import { EditUser } from "@/components/users/edit-user";
import type { Metadata } from "next";

export const metadata: Metadata = { title: "Edit user" };

export default async function EditUserPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <EditUser id={id} />;
}
