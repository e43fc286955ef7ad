"use client";

import { useModalDialog } from "@/lib/client/use-modal-dialog";
import { useId, useRef, type ReactNode } from "react";
import { Button } from "./button";

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

/**
 * The one confirm dialog: a native modal <dialog> (the browser keeps the focus inside it and
 * closes it on Escape), focus on the safe choice first and back where it was when it closes.
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  cancelLabel = "Cancel",
  danger = false,
  onConfirm,
  onCancel,
}: {
  open: boolean;
  title: string;
  children?: ReactNode;
  confirmLabel: string;
  cancelLabel?: string;
  danger?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const cancelRef = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  const bodyId = useId();

  return (
    // The safe choice takes the focus first.
    <ModalDialog
      open={open}
      first={() => cancelRef.current}
      onClose={onCancel}
      labelledBy={titleId}
      describedBy={children ? bodyId : undefined}
      alert
    >
      <div className="flex flex-col gap-3 p-5 sm:p-6">
        <h2 id={titleId} className="text-lg font-semibold text-slate-900">
          {title}
        </h2>
        {children && (
          <div id={bodyId} className="text-sm text-slate-700">
            {children}
          </div>
        )}
        <div className="mt-2 flex flex-wrap justify-end gap-2">
          <Button ref={cancelRef} onClick={onCancel}>
            {cancelLabel}
          </Button>
          <Button kind={danger ? "danger" : "primary"} onClick={onConfirm}>
            {confirmLabel}
          </Button>
        </div>
      </div>
    </ModalDialog>
  );
}
