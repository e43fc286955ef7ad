"use client";

import { Failed, ShellFrame } from "@/components/shell-frame";
import "./globals.css";

/**
 * The last resort, when the root layout itself failed: it replaces the whole document, styled
 * with the app's stylesheet only (the Content-Security-Policy refuses inline styles).
 */
export default function GlobalError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <html lang="en">
      <head>
        <title>Something went wrong · Users &amp; Surveys</title>
      </head>
      <body className="min-h-screen bg-slate-50 font-sans text-slate-900 antialiased">
        <ShellFrame>
          <Failed what="The application" error={error} reset={reset} />
        </ShellFrame>
      </body>
    </html>
  );
}
