"use client";

import type { ReactNode } from "react";
import { useModalDialog } from "@/lib/client/use-modal-dialog";

// Whole class names, so that Tailwind finds them in the source.
const WIDTHS = { narrow: "w-[min(28rem,calc(100vw-2rem))]", wide: "w-[min(32rem,calc(100vw-2rem))]" };

/**
 * The pages' modal dialog (the command palette has its own): a native <dialog> shown while `open`
 * (lib/client/use-modal-dialog.ts), `first` taking the focus, Escape calling `onClose`.
 */
export function ModalDialog({
  open,
  first,
  onClose,
  labelledBy,
  describedBy,
  alert = false,
  width = "narrow",
  children,
}: {
  open: boolean;
  first: (dialog: HTMLDialogElement) => HTMLElement | null | undefined;
  onClose: () => void;
  labelledBy: string;
  describedBy?: string;
  /** A question that interrupts (a confirmation): an alertdialog. */
  alert?: boolean;
  width?: keyof typeof WIDTHS;
  children: ReactNode;
}) {
  const ref = useModalDialog(open, first);
  return (
    <dialog
      ref={ref}
      {...(alert ? { role: "alertdialog", "aria-modal": "true" as const } : {})}
      aria-labelledby={labelledBy}
      aria-describedby={describedBy}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      className={`m-auto ${WIDTHS[width]} rounded-lg border border-slate-200 bg-white p-0 text-slate-900 shadow-xl backdrop:bg-black/50`}
    >
      {children}
    </dialog>
  );
}
