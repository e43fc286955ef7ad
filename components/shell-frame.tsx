import Link from "next/link";
import type { ReactNode } from "react";
import { Button, focusRing, linkClass } from "./ui";

/**
 * The admin shell's look without its data (who is signed in, their roles): for the pages that
 * stand outside the admin layout — an unknown address, an error of the whole app — so they
 * still look like the admin and lead back into it.
 */
export function ShellFrame({ children }: { children: ReactNode }) {
  return (
    <>
      <header className="border-b border-slate-200 bg-white">
        <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3 sm:px-6">
          <Link href="/users" className={`rounded text-base font-semibold tracking-tight text-slate-900 ${focusRing}`}>
            Users <span className="text-sky-700">&amp;</span> Surveys
          </Link>
          <nav aria-label="Main" className="flex items-center gap-1">
            {[
              ["/users", "Users"],
              ["/surveys", "Surveys"],
              ["/docs", "API reference"],
            ].map(([href, label]) => (
              <Link
                key={href}
                href={href}
                className={`rounded-md px-3 py-1.5 text-sm font-medium text-slate-600 hover:bg-slate-100 hover:text-slate-900 ${focusRing}`}
              >
                {label}
              </Link>
            ))}
          </nav>
        </div>
      </header>
      <main id="main" className="mx-auto max-w-7xl px-4 py-6 sm:px-6 sm:py-8">
        {children}
      </main>
    </>
  );
}

/** What a lost or failed page says: a status line, a heading, a sentence and the ways on. */
export function Lost({
  status,
  title,
  children,
  actions,
}: {
  status: string;
  title: string;
  children: ReactNode;
  actions?: ReactNode;
}) {
  return (
    <div className="mx-auto flex max-w-xl flex-col gap-4 py-10">
      <p className="text-sm font-medium text-slate-600">{status}</p>
      <h1 className="text-3xl font-semibold tracking-tight text-slate-900">{title}</h1>
      <div className="text-slate-700">{children}</div>
      <div className="flex flex-wrap items-center gap-4">
        {actions}
        <Link href="/users" className={`w-fit ${linkClass}`}>
          Back to the users list
        </Link>
      </div>
    </div>
  );
}

/** A page that failed while rendering: said plainly, with a Retry and the reference to quote. */
export function Failed({
  what,
  error,
  reset,
}: {
  what: string;
  error: Error & { digest?: string };
  reset: () => void;
}) {
  return (
    <Lost
      status="Error"
      title="Something went wrong"
      actions={
        <Button kind="primary" onClick={reset}>
          Retry
        </Button>
      }
    >
      <p>{what} could not be shown. Retry, or go back to the users list.</p>
      {error.digest && <p className="mt-2 text-sm text-slate-600">Error reference: {error.digest}</p>}
    </Lost>
  );
}
