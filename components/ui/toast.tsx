"use client";

import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
  type PointerEvent,
  type ReactNode,
} from "react";
import { focusRing } from "./focus-ring";

/**
 * The one way a page says that something happened: short messages read out by screen readers (a
 * polite live region), each dismissible and gone after a few seconds — unless the pointer or the
 * focus rests on it, so nobody loses a message they are reading.
 *
 * A notice never covers the page (docs/architecture.md, the admin pages): it takes a band of its
 * own in the page's flow, right under the header (`<ToastRegion>`, placed by the admin shell),
 * which pushes the page down instead of lying over it. It does not stick while the page scrolls:
 * a sticking band lay over the controls scrolled under it (the live region still announces every
 * notice). Pages outside the shell (sign-in) have no such band: there the notices sit
 * at the bottom, over a page that holds a single form.
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
/** The notices and the band's registration (a page with a band shows them there, not at the bottom). */
const RegionContext = createContext<
  { toasts: Toast[]; dismiss: (id: number) => void; register: () => () => void } | undefined
>(undefined);

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
    // The newest on top; a few at most, the oldest make way (the band stays low).
    setToasts((list) => [{ ...toast, id }, ...list].slice(0, 3));
    return id;
  }, []);
  const api = useMemo(() => ({ show, dismiss }), [show, dismiss]);
  const [bands, setBands] = useState(0);
  const register = useCallback(() => {
    setBands((count) => count + 1);
    return () => setBands((count) => count - 1);
  }, []);
  const region = useMemo(() => ({ toasts, dismiss, register }), [toasts, dismiss, register]);

  return (
    <ToastContext.Provider value={api}>
      <RegionContext.Provider value={region}>
        {children}
        {bands === 0 && (
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
        )}
      </RegionContext.Provider>
    </ToastContext.Provider>
  );
}

/**
 * The band of the notices, in the page's flow under the header: empty (no height) until a notice
 * comes, then as tall as the notices, so the page below moves down rather than being covered. It
 * scrolls with the page (a sticking band lay over what was scrolled under it). The live region is
 * always there, so a screen reader reads every notice as it comes.
 */
export function ToastRegion({ className = "" }: { className?: string }) {
  const region = useContext(RegionContext);
  if (!region) throw new Error("<ToastRegion> needs a <ToastProvider> above it");
  const { toasts, dismiss, register } = region;
  useEffect(() => register(), [register]);
  return (
    <div
      role="status"
      aria-live="polite"
      aria-label="Notifications"
      data-toast-region
      className={`relative z-20 ${toasts.length > 0 ? "border-b border-slate-200 bg-white/95 backdrop-blur" : ""} ${className}`}
    >
      {toasts.length > 0 && (
        <div className="mx-auto flex max-w-7xl flex-col items-stretch gap-2 px-4 py-2 sm:items-end sm:px-6">
          {toasts.map((toast) => (
            <ToastItem key={toast.id} toast={toast} onDismiss={() => dismiss(toast.id)} />
          ))}
        </div>
      )}
    </div>
  );
}

const tones = {
  success: "border-emerald-300 bg-emerald-50 text-emerald-950",
  error: "border-rose-300 bg-rose-50 text-rose-950",
  info: "border-slate-300 bg-white text-slate-900",
} as const;

function ToastItem({ toast, onDismiss }: { toast: Toast; onDismiss: () => void }) {
  const [paused, setPaused] = useState(false);
  // The latest dismiss, so that the region's re-renders do not restart the clock.
  const dismiss = useRef(onDismiss);
  useEffect(() => {
    dismiss.current = onDismiss;
  });
  useEffect(() => {
    if (paused) return;
    const timer = setTimeout(() => dismiss.current(), toast.action ? SHOWN_WITH_ACTION_MS : SHOWN_MS);
    return () => clearTimeout(timer);
  }, [paused, toast.action]);
  // A pointer that was resting where the notice appeared (on the Undo just pressed) is not reading
  // it: only a pointer that moves over it pauses the clock.
  const restingAt = useRef<{ x: number; y: number } | null>(null);
  const pointerAt = (event: PointerEvent<HTMLDivElement>) => {
    const at = { x: event.clientX, y: event.clientY };
    if (!restingAt.current) restingAt.current = at;
    else if (Math.abs(at.x - restingAt.current.x) + Math.abs(at.y - restingAt.current.y) > 2) setPaused(true);
  };

  return (
    <div
      data-toast
      onPointerEnter={pointerAt}
      onPointerMove={pointerAt}
      onMouseLeave={() => {
        restingAt.current = null;
        setPaused(false);
      }}
      onFocus={() => setPaused(true)}
      onBlur={() => setPaused(false)}
      className={`pointer-events-auto flex w-full items-start gap-3 rounded-lg border px-4 py-2 text-sm shadow-sm sm:max-w-md ${tones[toast.tone ?? "success"]}`}
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
      <button
        type="button"
        onClick={onDismiss}
        aria-label="Dismiss"
        className={`rounded-md px-1.5 py-0.5 hover:bg-black/5 ${focusRing}`}
      >
        <span aria-hidden>×</span>
      </button>
    </div>
  );
}
