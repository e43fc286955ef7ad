import { Suspense } from "react";
import { SignInForm } from "./sign-in-form";

/** The whole sign-in screen, shown at `/` and at `/sign-in` alike. */
export function SignInScreen() {
  return (
    <main className="flex min-h-screen items-start justify-center px-4 py-16 sm:items-center sm:py-8">
      <div className="w-full max-w-sm">
        <p className="mb-2 text-center text-sm font-semibold tracking-wider text-sky-700 uppercase">
          Users &amp; Surveys
        </p>
        <h1 className="mb-6 text-center text-2xl font-semibold tracking-tight text-slate-900">Sign in to the admin</h1>
        {/* The form reads `next` from the URL, which needs a Suspense boundary to prerender. */}
        <Suspense>
          <SignInForm />
        </Suspense>
      </div>
    </main>
  );
}
