/** Buttons and links with the one focus ring; a link styled as a button for a navigation. */
import Link from "next/link";
import type { ComponentProps } from "react";
import { focusRing } from "./focus-ring";

const buttonKinds = {
  primary: "bg-sky-700 text-white shadow-sm hover:bg-sky-800 disabled:bg-sky-700/60",
  secondary: "border border-slate-300 bg-white text-slate-800 shadow-sm hover:bg-slate-50 disabled:text-slate-400",
  danger: "border border-rose-300 bg-white text-rose-700 shadow-sm hover:bg-rose-50 disabled:text-rose-300",
  ghost: "text-slate-700 hover:bg-slate-100 disabled:text-slate-400",
} as const;

type ButtonKind = keyof typeof buttonKinds;

export function buttonClass(kind: ButtonKind = "secondary", extra = ""): string {
  return `inline-flex items-center justify-center gap-1.5 whitespace-nowrap rounded-md px-3.5 py-2 text-sm font-medium transition-colors disabled:cursor-not-allowed ${buttonKinds[kind]} ${focusRing} ${extra}`;
}

export function Button({
  kind = "secondary",
  className = "",
  type = "button",
  ...props
}: ComponentProps<"button"> & { kind?: ButtonKind }) {
  return <button type={type} className={buttonClass(kind, className)} {...props} />;
}

export function LinkButton({
  kind = "secondary",
  className = "",
  ...props
}: ComponentProps<typeof Link> & { kind?: ButtonKind }) {
  return <Link className={buttonClass(kind, className)} {...props} />;
}

export const linkClass = `rounded-sm font-medium text-sky-700 underline-offset-2 hover:underline ${focusRing}`;
