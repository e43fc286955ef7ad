"use client";

import { useId, useRef, type ReactNode } from "react";
import { ModalDialog } from "./modal-dialog";
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
  const titleId = useId();
  const bodyId = useId();

  return (
    // The safe choice takes the focus first.
    <ModalDialog open={open} first={() => cancelRef.current} onClose={onCancel} labelledBy={titleId} describedBy={children ? bodyId : undefined} alert>
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
