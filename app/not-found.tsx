import { Lost, ShellFrame } from "@/components/shell-frame";
import type { Metadata } from "next";

export const metadata: Metadata = { title: "Page not found" };

/**
 * Any address without a page, in the admin's own frame. Next's built-in one styles itself with
 * inline style attributes and a <style> element, which the pages' Content-Security-Policy refuses
 * (docs/security.md, "Headers").
 */
export default function NotFound() {
  return (
    <ShellFrame>
      <Lost status="404" title="Page not found">
        There is no page at this address. It may have been mistyped, or the page has moved.
      </Lost>
    </ShellFrame>
  );
}
