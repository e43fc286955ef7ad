/** Labelled fields with their hint and error, the list filters' drop-downs and the groups of checkboxes. */
import type { ReactNode } from "react";
import { Checkbox } from "./checkbox";

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
export function Select({
  id,
  label,
  value,
  onChange,
  children,
}: {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  children: ReactNode;
}) {
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
      <select
        id={id}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        {...describedBy(id, error)}
        className={inputClass}
      >
        <option value="">{records ? empty : "Loading…"}</option>
        {records?.map((record) => (
          <option key={record._id} value={record._id}>
            {record.name}
          </option>
        ))}
        {value && records && !records.some((record) => record._id === value) && (
          <option value={value}>Unknown ({value.slice(-6)})</option>
        )}
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
        <div
          className={`mt-2 grid grid-cols-1 gap-1.5 rounded-md border p-3 ${columns === 2 ? "lg:grid-cols-2" : ""} ${error ? "border-rose-400" : "border-slate-200"}`}
        >
          {records.map((record, index) => {
            const checkboxId = index === 0 ? id : `${id}-${record._id}`;
            return (
              <div key={record._id} className="flex items-center gap-2">
                <Checkbox
                  id={checkboxId}
                  checked={value.includes(record._id)}
                  onChange={(event) =>
                    onChange(event.target.checked ? [...value, record._id] : value.filter((v) => v !== record._id))
                  }
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
