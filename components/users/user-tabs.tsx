"use client";

import { useIsAdmin } from "../admin-shell";
import { TabStrip } from "../tab-strip";

/** The tabs of one user: the profile, and (for admins) its history from the audit log. */
export function UserTabs({ id }: { id: string }) {
  const isAdmin = useIsAdmin();
  if (!isAdmin) return null;
  return (
    <TabStrip
      label="User"
      tabs={[
        { href: `/users/${id}`, label: "Profile" },
        { href: `/users/${id}/history`, label: "History" },
      ]}
    />
  );
}
