"use client";

import { z } from "zod";

// In the browser zod parses without compiling code: its probe for whether it may (`new Function`)
// is itself reported as a violation of the pages' Content-Security-Policy, which forbids eval.
// The server keeps the compiled, faster parsers.
if (typeof window !== "undefined") z.config({ jitless: true });

/** Rendered once by the root layout so that the setting above runs on every page. */
export function JitlessZod(): null {
  return null;
}
