"use client";

/**
 * The one popover of the admin (the Columns chooser, Export, the bulk Actions menu, saved Views): a
 * button that shows a panel below it. It closes as a menu closes (docs/architecture.md, the admin
 * pages): on Escape, on a press outside it, and when the focus leaves it; and the focus returns to
 * its button unless the person put it somewhere else (a field they clicked, a dialog that opened).
 */
import { type ReactNode, useEffect, useId, useRef } from "react";
import { focusRing } from "./focus-ring";

export interface PopoverProps {
  /** The button's content (its name). */
  label: ReactNode;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** The panel, rendered only while open (so its fields never share a name with the page's). */
  children: ReactNode;
  /** The button's look; a bordered secondary button when left out. */
  buttonClassName?: string;
  /** The panel's placement and width; it always has the panel's frame and shadow. */
  panelClassName?: string;
  /** The panel's element: a `fieldset` for a group of choices, a `div` otherwise. */
  as?: "div" | "fieldset";
}

export function Popover({
  label,
  open,
  onOpenChange,
  children,
  buttonClassName,
  panelClassName = "left-0 w-56",
  as: Panel = "div",
}: PopoverProps) {
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const panelId = useId();
  const wasOpen = useRef(open);

  useEffect(() => {
    if (!open) return;
    const outside = (target: EventTarget | null) => target instanceof Node && !root.current?.contains(target);
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "Escape") return;
      // Escape closes this one thing, not a dialog it sits in.
      event.stopPropagation();
      onOpenChange(false);
    };
    const onPointer = (event: PointerEvent) => outside(event.target) && onOpenChange(false);
    const onFocus = (event: FocusEvent) => outside(event.target) && onOpenChange(false);
    document.addEventListener("keydown", onKey, true);
    document.addEventListener("pointerdown", onPointer);
    document.addEventListener("focusin", onFocus);
    return () => {
      document.removeEventListener("keydown", onKey, true);
      document.removeEventListener("pointerdown", onPointer);
      document.removeEventListener("focusin", onFocus);
    };
  }, [open, onOpenChange]);

  // Closed by Escape or by a choice in it, the focus would fall to the page's body: it goes back to the button.
  useEffect(() => {
    if (wasOpen.current && !open) {
      const active = document.activeElement;
      if (!active || active === document.body || root.current?.contains(active)) button.current?.focus();
    }
    wasOpen.current = open;
  }, [open]);

  return (
    <div ref={root} className="relative">
      <button
        ref={button}
        type="button"
        aria-expanded={open}
        aria-controls={open ? panelId : undefined}
        onClick={() => onOpenChange(!open)}
        className={`${buttonClassName ?? "inline-flex items-center gap-1 rounded-md border border-slate-300 bg-white px-2.5 py-1 text-sm text-slate-700 shadow-sm hover:bg-slate-50"} ${focusRing}`}
      >
        {label}
      </button>
      {open && (
        <Panel
          id={panelId}
          className={`absolute z-30 mt-1 rounded-md border border-slate-200 bg-white p-1 text-slate-800 shadow-lg ${panelClassName}`}
        >
          {children}
        </Panel>
      )}
    </div>
  );
}
