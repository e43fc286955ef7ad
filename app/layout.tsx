import { THEME_SCRIPT } from "@/lib/client/theme";
import type { Metadata } from "next";
import { headers } from "next/headers";
import { connection } from "next/server";
import type { ReactNode } from "react";
import "./globals.css";
import { HistoryGuard } from "./history-guard";
import { JitlessZod } from "./jitless-zod";

export const metadata: Metadata = {
  title: { template: "%s · Users & Surveys", default: "Users & Surveys" },
  description: "Administration of a company's users and surveys",
};

/** The nonce of this request's Content-Security-Policy, which proxy.ts hands to the renderer. */
async function cspNonce(): Promise<string | undefined> {
  const policy = (await headers()).get("content-security-policy") ?? "";
  return /'nonce-([^']+)'/.exec(policy)?.[1];
}

export default async function RootLayout({ children }: Readonly<{ children: ReactNode }>) {
  // Every page is rendered per request, never prebuilt: its scripts carry the nonce of the
  // request's Content-Security-Policy (proxy.ts), which a page built ahead of time cannot know.
  await connection();
  const nonce = await cspNonce();
  return (
    // The theme script sets the `dark` class before React hydrates: a difference React must not fix.
    <html lang="en" suppressHydrationWarning>
      <head>
        <script nonce={nonce} suppressHydrationWarning dangerouslySetInnerHTML={{ __html: THEME_SCRIPT }} />
      </head>
      <body className="min-h-screen bg-slate-50 font-sans text-slate-900 antialiased">
        <JitlessZod />
        <HistoryGuard />
        {children}
      </body>
    </html>
  );
}
