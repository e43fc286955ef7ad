import type { Metadata } from "next";
import { connection } from "next/server";
import type { ReactNode } from "react";
import "./globals.css";
import { JitlessZod } from "./jitless-zod";

export const metadata: Metadata = {
  title: { template: "%s · Users & Surveys", default: "Users & Surveys" },
  description: "Administration of a company's users and surveys",
};

export default async function RootLayout({ children }: Readonly<{ children: ReactNode }>) {
  // Every page is rendered per request, never prebuilt: its scripts carry the nonce of the
  // request's Content-Security-Policy (proxy.ts), which a page built ahead of time cannot know.
  await connection();
  return (
    <html lang="en">
      <body className="min-h-screen bg-slate-50 font-sans text-slate-900 antialiased">
        <JitlessZod />
        {children}
      </body>
    </html>
  );
}
