import { databaseKind, ping } from "@/lib/db";

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
      <p className="text-sm text-slate-500">
        Health check: <a className="font-mono text-sky-700 underline" href="/api/health">/api/health</a>
      </p>
    </main>
  );
}
