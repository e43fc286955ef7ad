"use client";

import { goToSignIn } from "@/lib/client/session";
import { useEffect } from "react";
import { Loading } from "./ui";

/** Shown instead of an admin page without a session: off to sign-in, remembering the page. */
export function RedirectToSignIn() {
  useEffect(goToSignIn, []);
  return (
    <main className="mx-auto max-w-md px-6 py-16">
      <h1 className="sr-only">Sign in required</h1>
      <Loading label="Taking you to sign in…" />
    </main>
  );
}
