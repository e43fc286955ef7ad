import { databaseKind, ping } from "@/lib/db";

export const dynamic = "force-dynamic";

const databaseLabel = {
  embedded: "the project's own MongoDB-compatible database, under DATA_DIR",
  mongodb: "the MongoDB deployment of MONGODB_URI",
} as const;

export default async function HomePage() {
  const kind = databaseKind();
  const reachable = await ping().then(
    () => true,
    () => false,
  );

  return (
    <main className="mx-auto flex max-w-xl flex-col gap-6 px-6 py-16">
      <h1 className="text-3xl font-semibold tracking-tight">Users &amp; Surveys</h1>
      <section className="rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
        <p className="flex items-center gap-2 text-lg">
          <span className="inline-block size-2.5 rounded-full bg-emerald-500" aria-hidden />
          The server is running.
        </p>
        <p className="mt-3 flex items-baseline gap-2 text-slate-700">
          <span
            className={`inline-block size-2.5 rounded-full ${reachable ? "bg-emerald-500" : "bg-rose-500"}`}
            aria-hidden
          />
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
