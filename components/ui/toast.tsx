"use client";

import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { focusRing } from "./focus-ring";

/**
 * The one way a page says that something happened: short messages stacked in a corner, read out
 * by screen readers (a polite live region), each dismissible and gone after a few seconds —
 * unless the pointer or the focus rests on it, so nobody loses a message they are reading.
 */
export interface ToastInput {
  message: string;
  tone?: "success" | "error" | "info";
  /** One button beside the message (such as Undo); the toast closes when it is pressed. */
  action?: { label: string; onClick: () => unknown };
}

interface Toast extends ToastInput {
  id: number;
}

const SHOWN_MS = 6000;
/** A toast with an action stays longer: undoing needs time to read and reach the button. */
const SHOWN_WITH_ACTION_MS = 10_000;

interface ToastApi {
  show: (toast: ToastInput) => number;
  dismiss: (id: number) => void;
}

const ToastContext = createContext<ToastApi | undefined>(undefined);

export function useToast(): ToastApi {
  const api = useContext(ToastContext);
  if (!api) throw new Error("useToast() needs a <ToastProvider> above it");
  return api;
}

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const next = useRef(1);
  const dismiss = useCallback((id: number) => setToasts((list) => list.filter((toast) => toast.id !== id)), []);
  const show = useCallback((toast: ToastInput) => {
    const id = next.current++;
    // The newest on top; a few at most, the oldest make way.
    setToasts((list) => [{ ...toast, id }, ...list].slice(0, 4));
    return id;
  }, []);
  const api = useMemo(() => ({ show, dismiss }), [show, dismiss]);

  return (
    <ToastContext.Provider value={api}>
      {children}
      <div
        role="status"
        aria-live="polite"
        aria-label="Notifications"
        className="pointer-events-none fixed inset-x-0 bottom-0 z-50 flex flex-col items-center gap-2 p-4 sm:inset-x-auto sm:right-0 sm:items-end"
      >
        {toasts.map((toast) => (
          <ToastItem key={toast.id} toast={toast} onDismiss={() => dismiss(toast.id)} />
        ))}
      </div>
    </ToastContext.Provider>
  );
}

const tones = {
  success: "border-emerald-300 bg-emerald-50 text-emerald-950",
  error: "border-rose-300 bg-rose-50 text-rose-950",
  info: "border-slate-300 bg-white text-slate-900",
} as const;

function ToastItem({ toast, onDismiss }: { toast: Toast; onDismiss: () => void }) {
  const [paused, setPaused] = useState(false);
  useEffect(() => {
    if (paused) return;
    const timer = setTimeout(onDismiss, toast.action ? SHOWN_WITH_ACTION_MS : SHOWN_MS);
    return () => clearTimeout(timer);
  }, [paused, onDismiss, toast.action]);

  return (
    <div
      data-toast
      onMouseEnter={() => setPaused(true)}
      onMouseLeave={() => setPaused(false)}
      onFocus={() => setPaused(true)}
      onBlur={() => setPaused(false)}
      className={`pointer-events-auto flex w-full max-w-sm items-start gap-3 rounded-lg border px-4 py-3 text-sm shadow-lg ${tones[toast.tone ?? "success"]}`}
    >
      <p className="flex-1 py-0.5">{toast.message}</p>
      {toast.action && (
        <button
          type="button"
          onClick={() => {
            onDismiss();
            void toast.action!.onClick();
          }}
          className={`rounded-md px-2 py-0.5 font-semibold underline underline-offset-2 hover:bg-black/5 ${focusRing}`}
        >
          {toast.action.label}
        </button>
      )}
      <button type="button" onClick={onDismiss} aria-label="Dismiss" className={`rounded-md px-1.5 py-0.5 hover:bg-black/5 ${focusRing}`}>
        <span aria-hidden>×</span>
      </button>
    </div>
  );
}
