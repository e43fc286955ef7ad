/**
 * The pieces of the API reference page: plain, server-rendered HTML (headings, lists, links), so
 * it reads the same with a screen reader, a keyboard, on a phone, and without JavaScript.
 */
import type { JsonSchema } from "@/lib/platform/openapi/schema";
import {
  constraintsOf,
  errorSchemaOf,
  fieldsOf,
  type Inline,
  markdown,
  type Method,
  type OperationView,
  type ParameterView,
  type ResponseView,
  typeOf,
} from "./reference";

export const schemaAnchor = (name: string) => `schema-${name}`;
const link =
  "rounded-sm font-medium text-sky-800 underline underline-offset-2 hover:text-sky-950 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600";
const codeClass = "rounded bg-slate-100 px-1 py-0.5 font-mono text-[0.85em] text-slate-900 [overflow-wrap:anywhere]";

function InlineText({ parts }: { parts: Inline[] }) {
  return parts.map((part, index) =>
    part.kind === "code" ? (
      <code key={index} className={codeClass}>
        {part.text}
      </code>
    ) : part.kind === "strong" ? (
      <strong key={index} className="font-semibold text-slate-900">
        {part.text}
      </strong>
    ) : (
      part.text
    ),
  );
}

export function Markdown({ text, className = "" }: { text: string | undefined; className?: string }) {
  if (!text) return null;
  return (
    <div className={`flex flex-col gap-2 ${className}`}>
      {markdown(text).map((parts, index) => (
        <p key={index}>
          <InlineText parts={parts} />
        </p>
      ))}
    </div>
  );
}

function TypeName({ schema }: { schema: JsonSchema }) {
  return (
    <span className="font-mono text-[0.85em] [overflow-wrap:anywhere] text-slate-700">
      {typeOf(schema).map((part, index) =>
        "ref" in part ? (
          <a key={index} href={`#${schemaAnchor(part.ref)}`} className={link}>
            {part.ref}
          </a>
        ) : (
          <span key={index}>{part.text}</span>
        ),
      )}
    </span>
  );
}

/** The limits of a value, separated by semicolons. */
function Constraints({ schema }: { schema: JsonSchema }) {
  return constraintsOf(schema).map((parts, index) => (
    <span key={index}>
      {index > 0 && "; "}
      <InlineText parts={parts} />
    </span>
  ));
}

function Field({
  name,
  required,
  schema,
  where,
  description,
}: {
  name: string;
  required: boolean;
  schema: JsonSchema;
  where?: string;
  description?: string;
}) {
  const constraints = constraintsOf(schema);
  const fields = fieldsOf(schema);
  const about = description ?? (typeof schema.description === "string" ? schema.description : undefined);
  return (
    <li className="border-t border-slate-200 py-2.5 first:border-t-0">
      <p className="flex flex-wrap items-baseline gap-x-2 gap-y-1">
        <code className="font-mono text-sm font-semibold [overflow-wrap:anywhere] text-slate-900">{name}</code>
        <TypeName schema={schema} />
        {where && <span className="text-xs text-slate-600">in {where}</span>}
        {required ? (
          <span className="text-xs font-semibold text-rose-800">required</span>
        ) : (
          <span className="text-xs text-slate-600">optional</span>
        )}
      </p>
      <Markdown text={about} className="mt-1 text-sm text-slate-700" />
      {constraints.length > 0 && (
        <p className="mt-1 text-xs text-slate-600">
          <Constraints schema={schema} />
        </p>
      )}
      {fields.length > 0 && <Fields schema={schema} nested />}
    </li>
  );
}

/** The fields of an object schema, nested objects indented beneath their field. */
export function Fields({ schema, nested = false }: { schema: JsonSchema; nested?: boolean }) {
  const fields = fieldsOf(schema);
  if (fields.length === 0) {
    return (
      <p className="text-sm text-slate-700">
        <TypeName schema={schema} />
        {constraintsOf(schema).length > 0 && " — "}
        <Constraints schema={schema} />
      </p>
    );
  }
  return (
    <ul className={nested ? "mt-2 border-l-2 border-slate-200 pl-4" : ""}>
      {fields.map((field) => (
        <Field key={field.name} {...field} />
      ))}
    </ul>
  );
}

function Parameters({ parameters }: { parameters: ParameterView[] }) {
  return (
    <ul>
      {parameters.map((parameter) => (
        <Field
          key={`${parameter.in}:${parameter.name}`}
          name={parameter.name}
          where={parameter.in}
          required={parameter.required}
          schema={parameter.schema}
          description={parameter.description}
        />
      ))}
    </ul>
  );
}

function Responses({ responses }: { responses: ResponseView[] }) {
  return (
    <dl className="flex flex-col">
      {responses.map((response) => {
        const ok = response.status.startsWith("2");
        const errorSchema = ok ? undefined : errorSchemaOf(response.body);
        return (
          <div
            key={response.status}
            className="grid grid-cols-[3.5rem_1fr] gap-x-3 border-t border-slate-200 py-2.5 first:border-t-0"
          >
            <dt className={`font-mono text-sm font-semibold ${ok ? "text-emerald-800" : "text-slate-800"}`}>
              {response.status}
            </dt>
            <dd className="min-w-0 text-sm text-slate-700">
              <Markdown text={response.description} />
              {ok && response.body && (
                <p className="mt-1">
                  Body: <TypeName schema={response.body} />
                </p>
              )}
              {errorSchema && (
                <p className="mt-1">
                  Body:{" "}
                  <a href={`#${schemaAnchor(errorSchema)}`} className={`font-mono text-[0.85em] ${link}`}>
                    {errorSchema}
                  </a>
                </p>
              )}
              {ok && response.headers.length > 0 && (
                <p className="mt-1 text-xs text-slate-600">
                  Headers:{" "}
                  {response.headers.map((header, index) => (
                    <span key={header.name}>
                      {index > 0 && ", "}
                      <code className={codeClass}>{header.name}</code>
                    </span>
                  ))}
                </p>
              )}
            </dd>
          </div>
        );
      })}
    </dl>
  );
}

const methodTones: Record<Method, string> = {
  get: "bg-emerald-50 text-emerald-800 ring-emerald-700/30",
  post: "bg-sky-50 text-sky-800 ring-sky-700/30",
  put: "bg-amber-50 text-amber-900 ring-amber-700/30",
  patch: "bg-amber-50 text-amber-900 ring-amber-700/30",
  delete: "bg-rose-50 text-rose-800 ring-rose-700/30",
};

export function MethodBadge({ method }: { method: Method }) {
  return (
    <span
      className={`inline-block w-14 shrink-0 rounded px-1.5 py-0.5 text-center font-mono text-xs font-semibold ring-1 ring-inset ${methodTones[method]}`}
    >
      {method.toUpperCase()}
    </span>
  );
}

function Block({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <div className="mt-5">
      <h4 className="mb-1 text-sm font-semibold tracking-wide text-slate-600 uppercase">{title}</h4>
      {children}
    </div>
  );
}

export function Operation({ operation }: { operation: OperationView }) {
  return (
    <article
      id={operation.id}
      aria-labelledby={`${operation.id}-title`}
      className="scroll-mt-4 rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:p-6"
    >
      <h3 id={`${operation.id}-title`} className="text-lg font-semibold tracking-tight text-slate-900">
        {operation.summary}
      </h3>
      <p className="mt-2 flex flex-wrap items-center gap-2">
        <MethodBadge method={operation.method} />
        <code className="font-mono text-sm [overflow-wrap:anywhere] text-slate-900">{operation.path}</code>
      </p>
      <Markdown text={operation.description} className="mt-3 text-sm text-slate-700" />
      <p className="mt-3 text-sm text-slate-700">
        {operation.authenticated ? (
          <>
            Needs <code className={codeClass}>Authorization: Bearer &lt;token&gt;</code>.
          </>
        ) : (
          "No token needed."
        )}
      </p>
      {operation.parameters.length > 0 && (
        <Block title="Parameters">
          <Parameters parameters={operation.parameters} />
        </Block>
      )}
      {operation.body && (
        <Block title="Request body (JSON)">
          <Fields schema={operation.body} />
        </Block>
      )}
      <Block title="Responses">
        <Responses responses={operation.responses} />
      </Block>
    </article>
  );
}
