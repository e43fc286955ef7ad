import { SignInScreen } from "@/components/sign-in-screen";
import { SESSION_COOKIE } from "@/lib/platform/http/cookies";
import type { Metadata } from "next";
import { cookies } from "next/headers";
import { redirect } from "next/navigation";

// The root layout's title template applies to the segments below it, not to its own page.
export const metadata: Metadata = { title: { absolute: "Sign in · Users & Surveys" } };

/**
 * The front door is the admin: with a session it opens the users list (whose pages renew or
 * end the session), without one it is the sign-in form, which leads to the users list or to
 * the page named by `next`. The server's health is at `/api/health`.
 */
export default async function HomePage() {
  if ((await cookies()).has(SESSION_COOKIE)) redirect("/users");
  return <SignInScreen />;
}
