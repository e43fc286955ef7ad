"use client";

import { useId, useRef, type ReactNode } from "react";
import { useModalDialog } from "@/lib/client/use-modal-dialog";
import { Button } from "./ui";

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
  // The safe choice takes the focus first.
  const ref = useModalDialog(open, () => cancelRef.current);
  const titleId = useId();
  const bodyId = useId();

  return (
    <dialog
      ref={ref}
      role="alertdialog"
      aria-modal="true"
      aria-labelledby={titleId}
      aria-describedby={children ? bodyId : undefined}
      onCancel={(event) => {
        event.preventDefault();
        onCancel();
      }}
      className="m-auto w-[min(28rem,calc(100vw-2rem))] rounded-lg border border-slate-200 bg-white p-0 text-slate-900 shadow-xl backdrop:bg-black/50"
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
    </dialog>
  );
}
