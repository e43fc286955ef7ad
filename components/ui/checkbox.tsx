"use client";

import { useEffect, useRef, type ComponentProps, type ReactNode } from "react";
import { focusRing } from "./focus-ring";

/**
 * The one checkbox: one size that never shrinks beside a label of two lines, the brand's accent
 * and the focus ring. `indeterminate` shows a mixed state (a "select all" while only some rows are
 * chosen). With `label`, the box and its text are one `<label>`, so a click on the text ticks it
 * and the text is its accessible name; without, name it by `aria-label` or a `<label htmlFor>`.
 */
export function Checkbox({
  indeterminate = false,
  label,
  labelClassName = "",
  danger = false,
  className = "",
  ...props
}: Omit<ComponentProps<"input">, "type" | "ref"> & {
  indeterminate?: boolean;
  label?: ReactNode;
  labelClassName?: string;
  /** A choice that grants much (the admin scope): rose, not sky. */ danger?: boolean;
}) {
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (ref.current) ref.current.indeterminate = indeterminate;
  }, [indeterminate]);
  const input = (
    <input
      ref={ref}
      type="checkbox"
      className={`size-4 shrink-0 rounded disabled:opacity-60 ${danger ? "border-rose-400 accent-rose-700" : "border-slate-300 accent-sky-700"} ${focusRing} ${className}`}
      {...props}
    />
  );
  if (label === undefined) return input;
  return (
    <label className={`flex items-center gap-2 ${labelClassName}`}>
      {input}
      {label}
    </label>
  );
}
