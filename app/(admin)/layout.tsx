import { AdminShell } from "@/components/admin-shell";
import { Providers } from "@/components/providers";
import { RedirectToSignIn } from "@/components/redirect-to-sign-in";
import { SESSION_COOKIE } from "@/lib/platform/http/cookies";
import { cookies } from "next/headers";
import type { ReactNode } from "react";

/**
 * Every admin page: without a session cookie the browser goes straight to sign-in (and back
 * here afterwards); with one, the pages call `/v2` with tokens the cookie renews.
 */
export default async function AdminLayout({ children }: { children: ReactNode }) {
  const signedIn = (await cookies()).has(SESSION_COOKIE);
  if (!signedIn) return <RedirectToSignIn />;
  return (
    <Providers>
      <AdminShell>{children}</AdminShell>
    </Providers>
  );
}
