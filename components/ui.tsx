/**
 * The small set of building blocks every admin page is made of, so pages look and behave alike:
 * buttons and links with a visible focus ring, labelled fields with their errors, cards, badges,
 * loading and empty states.
 */
import Link from "next/link";
import type { ComponentProps, ReactNode } from "react";

/** The one popover (Columns, Export, bulk Actions, Views): closes on Escape and outside, returns the focus. */
export { Popover } from "./popover";

import { focusRing } from "./focus-ring";

export { focusRing };

const buttonKinds = {
  primary: "bg-sky-700 text-white shadow-sm hover:bg-sky-800 disabled:bg-sky-700/60",
  secondary: "border border-slate-300 bg-white text-slate-800 shadow-sm hover:bg-slate-50 disabled:text-slate-400",
  danger: "border border-rose-300 bg-white text-rose-700 shadow-sm hover:bg-rose-50 disabled:text-rose-300",
  ghost: "text-slate-700 hover:bg-slate-100 disabled:text-slate-400",
} as const;

export type ButtonKind = keyof typeof buttonKinds;

export function buttonClass(kind: ButtonKind = "secondary", extra = ""): string {
  return `inline-flex items-center justify-center gap-1.5 whitespace-nowrap rounded-md px-3.5 py-2 text-sm font-medium transition-colors disabled:cursor-not-allowed ${buttonKinds[kind]} ${focusRing} ${extra}`;
}

export function Button({ kind = "secondary", className = "", type = "button", ...props }: ComponentProps<"button"> & { kind?: ButtonKind }) {
  return <button type={type} className={buttonClass(kind, className)} {...props} />;
}

export function LinkButton({ kind = "secondary", className = "", ...props }: ComponentProps<typeof Link> & { kind?: ButtonKind }) {
  return <Link className={buttonClass(kind, className)} {...props} />;
}

export const linkClass = `rounded-sm font-medium text-sky-700 underline-offset-2 hover:underline ${focusRing}`;

export const inputClass =
  "block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm text-slate-900 shadow-sm placeholder:text-slate-400 " +
  "focus:border-sky-600 focus:outline-none focus:ring-2 focus:ring-sky-600/30 disabled:bg-slate-100 disabled:text-slate-500 " +
  "read-only:bg-slate-50 read-only:text-slate-600 aria-invalid:border-rose-500 aria-invalid:ring-rose-500/20";

/** A label above its control, with an optional hint and the field's error below it. */
export function Field({
  id,
  label,
  hint,
  error,
  children,
  className = "",
}: {
  id: string;
  label: ReactNode;
  hint?: ReactNode;
  error?: string;
  children: ReactNode;
  className?: string;
}) {
  return (
    <div className={`flex flex-col gap-1 ${className}`}>
      <label htmlFor={id} className="text-sm font-medium text-slate-800">
        {label}
      </label>
      {children}
      {hint && !error && (
        <p id={`${id}-hint`} className="text-xs text-slate-500">
          {hint}
        </p>
      )}
      {error && (
        <p id={`${id}-error`} className="text-sm text-rose-700">
          {error}
        </p>
      )}
    </div>
  );
}

/** The search box of a list page: the list follows what is typed (the caller debounces). */
export function SearchField({
  id,
  hint,
  value,
  onChange,
  placeholder,
  className,
}: {
  id: string;
  hint: ReactNode;
  value: string;
  onChange: (value: string) => void;
  placeholder: string;
  className?: string;
}) {
  return (
    <Field id={id} label="Search" hint={hint} className={className}>
      <input
        id={id}
        type="search"
        value={value}
        onChange={(event) => onChange(event.target.value)}
        placeholder={placeholder}
        autoComplete="off"
        aria-keyshortcuts="/"
        aria-describedby={`${id}-hint`}
        className={inputClass}
      />
    </Field>
  );
}

/** A labelled drop-down of a list's filters. */
export function Select({ id, label, value, onChange, children }: { id: string; label: string; value: string; onChange: (value: string) => void; children: ReactNode }) {
  return (
    <Field id={id} label={label}>
      <select id={id} value={value} onChange={(event) => onChange(event.target.value)} className={inputClass}>
        {children}
      </select>
    </Field>
  );
}

/**
 * A select of one record by id (a job title, a bot, a filter's access role), `empty` naming the
 * choice of none; an id the list does not hold (a record since removed) stays shown, not dropped.
 */
export function RecordSelect({
  id,
  label,
  empty,
  records,
  value,
  onChange,
  error,
}: {
  id: string;
  label: string;
  empty: string;
  records: { _id: string; name: string }[] | undefined;
  value: string;
  onChange: (value: string) => void;
  error?: string;
}) {
  return (
    <Field id={id} label={label} error={error}>
      <select id={id} value={value} onChange={(event) => onChange(event.target.value)} {...describedBy(id, error)} className={inputClass}>
        <option value="">{records ? empty : "Loading…"}</option>
        {records?.map((record) => (
          <option key={record._id} value={record._id}>
            {record.name}
          </option>
        ))}
        {value && records && !records.some((record) => record._id === value) && <option value={value}>Unknown ({value.slice(-6)})</option>}
      </select>
    </Field>
  );
}

/** A set of checkboxes choosing several records by id (access roles, properties). */
export function CheckboxGroup({
  id,
  legend,
  hint,
  records,
  value,
  onChange,
  error,
  columns = 1,
}: {
  id: string;
  legend: string;
  hint?: string;
  records: { _id: string; name: string }[] | undefined;
  value: string[];
  onChange: (value: string[]) => void;
  error?: string;
  /** Two columns on wide screens, for long lists. */
  columns?: 1 | 2;
}) {
  return (
    <fieldset aria-describedby={error ? `${id}-error` : undefined} aria-invalid={error ? true : undefined}>
      <legend className="text-sm font-medium text-slate-800">
        {legend}
        {hint && <span className="ml-1 font-normal text-slate-500">{hint}</span>}
      </legend>
      {!records ? (
        <p className="mt-2 text-sm text-slate-500">Loading…</p>
      ) : records.length === 0 ? (
        <p className="mt-2 text-sm text-slate-500">None defined yet.</p>
      ) : (
        <div className={`mt-2 grid grid-cols-1 gap-1.5 rounded-md border p-3 ${columns === 2 ? "lg:grid-cols-2" : ""} ${error ? "border-rose-400" : "border-slate-200"}`}>
          {records.map((record, index) => {
            const checkboxId = index === 0 ? id : `${id}-${record._id}`;
            return (
              <div key={record._id} className="flex items-center gap-2">
                <input
                  id={checkboxId}
                  type="checkbox"
                  checked={value.includes(record._id)}
                  onChange={(event) => onChange(event.target.checked ? [...value, record._id] : value.filter((v) => v !== record._id))}
                  className={`size-4 shrink-0 rounded border-slate-300 accent-sky-700 ${focusRing}`}
                />
                <label htmlFor={checkboxId} className="text-sm text-slate-800">
                  {record.name}
                </label>
              </div>
            );
          })}
        </div>
      )}
      <GroupError id={id} error={error} />
    </fieldset>
  );
}

/** The error under a group of controls (a fieldset that names `${id}-error` in its aria-describedby). */
export function GroupError({ id, error }: { id: string; error?: string }) {
  if (!error) return null;
  return (
    <p id={`${id}-error`} className="mt-1 text-sm text-rose-700">
      {error}
    </p>
  );
}

/** `aria-*` attributes tying a control to its hint or error inside a `Field`. */
export function describedBy(id: string, error?: string, hint?: boolean) {
  return {
    "aria-invalid": error ? true : undefined,
    "aria-describedby": error ? `${id}-error` : hint ? `${id}-hint` : undefined,
  } as const;
}

export function Card({ children, className = "", ...props }: ComponentProps<"section">) {
  return (
    <section className={`rounded-lg border border-slate-200 bg-white shadow-sm ${className}`} {...props}>
      {children}
    </section>
  );
}

const badgeTones = {
  green: "bg-emerald-50 text-emerald-800 ring-emerald-600/20",
  grey: "bg-slate-100 text-slate-700 ring-slate-500/20",
  blue: "bg-sky-50 text-sky-800 ring-sky-600/20",
  amber: "bg-amber-50 text-amber-800 ring-amber-600/20",
  violet: "bg-violet-50 text-violet-800 ring-violet-600/20",
  red: "bg-rose-50 text-rose-800 ring-rose-600/20",
} as const;

export function Badge({ tone = "grey", title, children }: { tone?: keyof typeof badgeTones; title?: string; children: ReactNode }) {
  return (
    <span title={title} className={`inline-flex items-center whitespace-nowrap rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${badgeTones[tone]}`}>
      {children}
    </span>
  );
}

export function ActiveBadge({ active }: { active: boolean }) {
  return <Badge tone={active ? "green" : "grey"}>{active ? "Active" : "Inactive"}</Badge>;
}

/** Title row of a page: the one `h1`, an optional line under it and the page's actions. */
export function PageHeader({ title, subtitle, actions, back }: { title: ReactNode; subtitle?: ReactNode; actions?: ReactNode; back?: ReactNode }) {
  return (
    <header className="mb-6 flex flex-col gap-3">
      {back}
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div className="min-w-0">
          <h1 className="truncate text-2xl font-semibold tracking-tight text-slate-900">{title}</h1>
          {subtitle && <div className="mt-1 text-sm text-slate-600">{subtitle}</div>}
        </div>
        {actions && <div className="flex flex-wrap items-center gap-2">{actions}</div>}
      </div>
    </header>
  );
}

export function BackLink({ href, children }: { href: string; children: ReactNode }) {
  return (
    <Link href={href} className={`w-fit text-sm ${linkClass}`}>
      <span aria-hidden>← </span>
      {children}
    </Link>
  );
}

export function Spinner({ className = "size-4" }: { className?: string }) {
  return <span aria-hidden className={`inline-block animate-spin rounded-full border-2 border-current border-r-transparent ${className}`} />;
}

export function Loading({ label = "Loading…" }: { label?: string }) {
  return (
    <p role="status" className="flex items-center gap-2 py-10 text-sm text-slate-600">
      <Spinner />
      {label}
    </p>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="flex flex-col items-center gap-2 px-6 py-14 text-center">
      <p className="text-base font-medium text-slate-800">{title}</p>
      {children && <div className="max-w-md text-sm text-slate-600">{children}</div>}
    </div>
  );
}

/** A definition list of label / value pairs, two columns from tablet width up. */
export function Facts({ items }: { items: [string, ReactNode][] }) {
  return (
    <dl className="grid grid-cols-1 gap-x-6 gap-y-4 sm:grid-cols-2">
      {items.map(([label, value]) => (
        <div key={label} className="min-w-0">
          <dt className="text-xs font-medium uppercase tracking-wide text-slate-500">{label}</dt>
          <dd className="mt-1 break-words text-sm text-slate-900">{value ?? <span className="text-slate-500">—</span>}</dd>
        </div>
      ))}
    </dl>
  );
}

const dateTimeFormat = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "short" });

export function DateTime({ value }: { value: string | null | undefined }) {
  if (!value) return <span className="text-slate-500">—</span>;
  return <time dateTime={value}>{dateTimeFormat.format(new Date(value))}</time>;
}
