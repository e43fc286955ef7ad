"use client";

import "./globals.css";
import { Lost, ShellFrame } from "@/components/shell-frame";
import { Button } from "@/components/ui";

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
          <Lost
            status="Error"
            title="Something went wrong"
            actions={
              <Button kind="primary" onClick={reset}>
                Retry
              </Button>
            }
          >
            <p>The application could not be shown. Retry, or go back to the users list.</p>
            {error.digest && <p className="mt-2 text-sm text-slate-600">Error reference: {error.digest}</p>}
          </Lost>
        </ShellFrame>
      </body>
    </html>
  );
}
