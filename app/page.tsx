import { cookies } from "next/headers";
import Link from "next/link";
import { redirect } from "next/navigation";
import { databaseKind, ping } from "@/lib/db";
import { SESSION_COOKIE } from "@/lib/http/cookies";

export const dynamic = "force-dynamic";

const databaseLabel = {
  embedded: "the project's own MongoDB-compatible database, under DATA_DIR",
  mongodb: "the MongoDB deployment of MONGODB_URI",
} as const;

function StatusDot({ ok }: { ok: boolean }) {
  return (
    <span
      className={`mt-[0.5em] inline-block size-2.5 shrink-0 rounded-full ${ok ? "bg-emerald-500" : "bg-rose-500"}`}
      aria-hidden
    />
  );
}

export default async function HomePage() {
  // A signed-in admin goes straight to the admin pages (which renew or end the session).
  if ((await cookies()).has(SESSION_COOKIE)) redirect("/users");
  const kind = databaseKind();
  const reachable = await ping().then(
    () => true,
    () => false,
  );

  return (
    <main className="mx-auto flex max-w-xl flex-col gap-6 px-6 py-16">
      <h1 className="text-3xl font-semibold tracking-tight">Users &amp; Surveys</h1>
      <section className="flex flex-col gap-3 rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
        <p className="flex items-start gap-2 text-lg">
          <StatusDot ok />
          The server is running.
        </p>
        <p className="flex items-start gap-2 text-slate-700">
          <StatusDot ok={reachable} />
          <span>
            Database: <strong data-testid="database-kind">{kind}</strong> — {databaseLabel[kind]},{" "}
            {reachable ? "answering" : "not answering"}.
          </span>
        </p>
      </section>
      <Link
        href="/sign-in"
        className="w-fit rounded-md bg-sky-700 px-4 py-2 font-medium text-white shadow-sm hover:bg-sky-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600"
      >
        Sign in to the admin
      </Link>
      <p className="text-sm text-slate-500">
        Health check: <a className="font-mono text-sky-700 underline" href="/api/health">/api/health</a>
      </p>
    </main>
  );
}
