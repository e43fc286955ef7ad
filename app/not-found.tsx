import type { Metadata } from "next";
import Link from "next/link";
import { linkClass } from "@/components/ui";

export const metadata: Metadata = { title: "Page not found" };

/**
 * Any address without a page. Next's built-in one styles itself with inline style attributes and
 * a <style> element, which the pages' Content-Security-Policy refuses (docs/security.md, "Headers").
 */
export default function NotFound() {
  return (
    <main className="mx-auto flex max-w-xl flex-col gap-4 px-6 py-16">
      <p className="text-sm font-medium text-slate-500">404</p>
      <h1 className="text-3xl font-semibold tracking-tight">Page not found</h1>
      <p className="text-slate-700">There is no page at this address.</p>
      <Link href="/" className={`w-fit ${linkClass}`}>
        Go to the start page
      </Link>
    </main>
  );
}
