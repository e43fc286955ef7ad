import { openApiDocument } from "@/lib/platform/openapi/document";
import type { JsonSchema } from "@/lib/platform/openapi/schema";
import type { Metadata } from "next";
import Link from "next/link";
import { tagsOf } from "./reference";
import { Fields, Markdown, MethodBadge, Operation, schemaAnchor } from "./view";

export const metadata: Metadata = {
  title: "API reference",
  description: "Reference of the /v2 HTTP API, rendered from its OpenAPI document",
};

const navLink =
  "block rounded px-2 py-1 text-sm text-slate-700 hover:bg-slate-100 hover:text-slate-950 focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-sky-600";

/**
 * The API reference: the OpenAPI document that `GET /v2/openapi.json` serves, rendered on the
 * server as plain HTML. Nothing is loaded from elsewhere and nothing needs JavaScript.
 */
export default function DocsPage() {
  const document = openApiDocument();
  const info = document.info as { title: string; version: string; description?: string };
  const tags = tagsOf(document as Parameters<typeof tagsOf>[0]);
  const schemas = Object.entries((document.components.schemas ?? {}) as Record<string, JsonSchema>);

  return (
    <div className="mx-auto max-w-7xl px-4 sm:px-6 lg:grid lg:grid-cols-[15rem_minmax(0,1fr)] lg:gap-10">
      <nav
        aria-label="Contents"
        className="border-b border-slate-200 py-4 lg:sticky lg:top-0 lg:max-h-screen lg:overflow-y-auto lg:border-b-0 lg:py-8"
      >
        <Link href="/users" className={`${navLink} font-semibold text-slate-900`}>
          <span aria-hidden>← </span>Back to the admin
        </Link>
        <ul className="mt-3 flex flex-wrap gap-x-1 lg:block">
          {tags.map((tag) => (
            <li key={tag.id} className="lg:mt-3">
              <a href={`#${tag.id}`} className={`${navLink} font-medium text-slate-900`}>
                {tag.name}
              </a>
              <ul className="hidden lg:block">
                {tag.operations.map((operation) => (
                  <li key={operation.id}>
                    <a href={`#${operation.id}`} className={`${navLink} flex items-center gap-2`}>
                      <MethodBadge method={operation.method} />
                      <span className="min-w-0">{operation.summary}</span>
                    </a>
                  </li>
                ))}
              </ul>
            </li>
          ))}
          <li className="lg:mt-3">
            <a href="#schemas" className={`${navLink} font-medium text-slate-900`}>
              Schemas
            </a>
          </li>
        </ul>
      </nav>

      <main className="min-w-0 py-8">
        <header className="max-w-3xl">
          <h1 className="text-3xl font-semibold tracking-tight text-slate-900">{info.title}</h1>
          <p className="mt-2 text-sm text-slate-600">
            Version {info.version} · OpenAPI {document.openapi} ·{" "}
            <a
              href="/v2/openapi.json"
              className="rounded-sm font-medium text-sky-800 underline underline-offset-2 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600"
            >
              the document as JSON
            </a>
          </p>
          <Markdown text={info.description} className="mt-5 text-slate-700" />
        </header>

        {tags.map((tag) => (
          <section key={tag.id} id={tag.id} aria-labelledby={`${tag.id}-title`} className="mt-12 scroll-mt-4">
            <h2 id={`${tag.id}-title`} className="text-2xl font-semibold tracking-tight text-slate-900">
              {tag.name}
            </h2>
            <Markdown text={tag.description} className="mt-1 text-slate-700" />
            <div className="mt-5 flex flex-col gap-6">
              {tag.operations.map((operation) => (
                <Operation key={operation.id} operation={operation} />
              ))}
            </div>
          </section>
        ))}

        <section id="schemas" aria-labelledby="schemas-title" className="mt-12 scroll-mt-4">
          <h2 id="schemas-title" className="text-2xl font-semibold tracking-tight text-slate-900">
            Schemas
          </h2>
          <p className="mt-1 text-slate-700">The records and answers the operations name.</p>
          <div className="mt-5 flex flex-col gap-6">
            {schemas.map(([name, schema]) => (
              <section
                key={name}
                id={schemaAnchor(name)}
                aria-labelledby={`${schemaAnchor(name)}-title`}
                className="scroll-mt-4 rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:p-6"
              >
                <h3 id={`${schemaAnchor(name)}-title`} className="font-mono text-lg font-semibold text-slate-900">
                  {name}
                </h3>
                <Markdown
                  text={typeof schema.description === "string" ? schema.description : undefined}
                  className="mt-1 text-sm text-slate-700"
                />
                <div className="mt-3">
                  <Fields schema={schema} />
                </div>
              </section>
            ))}
          </div>
        </section>
      </main>
    </div>
  );
}
