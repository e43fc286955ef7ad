import { BackLink, PageHeader } from "@/components/ui";
import { UserForm } from "@/components/users/user-form";
import type { Metadata } from "next";

export const metadata: Metadata = { title: "New user" };

export default function NewUserPage() {
  return (
    <div className="mx-auto max-w-4xl">
      <PageHeader
        title="New user"
        subtitle="Fields are checked as you save, with the same rules as the API."
        back={<BackLink href="/users">Users</BackLink>}
      />
      <UserForm />
    </div>
  );
}
