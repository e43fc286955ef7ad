/** The frame of a page's parts: cards, the title row, the link back, a list of facts and badges. */
import Link from "next/link";
import type { ComponentProps, ReactNode } from "react";
import { linkClass } from "./button";

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

export function Badge({
  tone = "grey",
  title,
  children,
}: {
  tone?: keyof typeof badgeTones;
  title?: string;
  children: ReactNode;
}) {
  return (
    <span
      title={title}
      className={`inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium whitespace-nowrap ring-1 ring-inset ${badgeTones[tone]}`}
    >
      {children}
    </span>
  );
}

export function ActiveBadge({ active }: { active: boolean }) {
  return <Badge tone={active ? "green" : "grey"}>{active ? "Active" : "Inactive"}</Badge>;
}

/** Title row of a page: the one `h1`, an optional line under it and the page's actions. */
export function PageHeader({
  title,
  subtitle,
  actions,
  back,
}: {
  title: ReactNode;
  subtitle?: ReactNode;
  actions?: ReactNode;
  back?: ReactNode;
}) {
  return (
    <header className="mb-6 flex flex-col gap-3">
      {back}
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div className="min-w-0">
          <h1
            className="truncate text-2xl font-semibold tracking-tight text-slate-900"
            title={typeof title === "string" ? title : undefined}
          >
            {title}
          </h1>
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

/** A definition list of label / value pairs, two columns from tablet width up. */
export function Facts({ items }: { items: [string, ReactNode][] }) {
  return (
    <dl className="grid grid-cols-1 gap-x-6 gap-y-4 sm:grid-cols-2">
      {items.map(([label, value]) => (
        <div key={label} className="min-w-0">
          <dt className="text-xs font-medium tracking-wide text-slate-500 uppercase">{label}</dt>
          <dd className="mt-1 text-sm break-words text-slate-900">
            {value ?? <span className="text-slate-500">—</span>}
          </dd>
        </div>
      ))}
    </dl>
  );
}
