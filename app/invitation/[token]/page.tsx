import type { Metadata } from "next";
import { SetPasswordForm } from "./set-password-form";

export const dynamic = "force-dynamic";

export const metadata: Metadata = {
  title: "Set your password",
  // The token is in this page's URL: never send it to another site in a Referer.
  referrer: "no-referrer",
  robots: { index: false, follow: false },
};

/** The page an invitation e-mail links to: the new user chooses a password, once. */
export default async function InvitationPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  return (
    <main className="mx-auto flex max-w-md flex-col gap-6 px-6 py-16">
      <h1 className="text-2xl font-semibold tracking-tight">Set your password</h1>
      <SetPasswordForm token={token} />
    </main>
  );
}
