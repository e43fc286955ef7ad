import { BackLink, PageHeader } from "@/components/ui";
import { ImportUsers } from "@/components/users/import-users";
import type { Metadata } from "next";

export const metadata: Metadata = { title: "Import users" };

export default function ImportUsersPage() {
  return (
    <div className="mx-auto max-w-4xl">
      <PageHeader
        title="Import users"
        subtitle="Add and update many users at once from a CSV or NDJSON file, such as an export of this list. Users are matched by e-mail."
        back={<BackLink href="/users">Users</BackLink>}
      />
      <ImportUsers />
    </div>
  );
}
