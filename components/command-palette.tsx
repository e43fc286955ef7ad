"use client";

/**
 * The command palette (Ctrl+K, ⌘K on a Mac, or the header's Find button): finds users and surveys
 * through their lists' own `/v2` searches and opens the chosen one with Enter, and offers the main
 * actions and every page of the menu. It is a native modal <dialog> like the confirm dialog (the
 * browser keeps the focus inside and closes it on Escape) holding cmdk's combobox and listbox,
 * whose code (./command-palette-panel.tsx) loads when the palette is first wanted: a press of its
 * button, a hover or focus on it, or its shortcut.
 */
import { isPaletteShortcut, useShortcutLabel } from "@/lib/client/palette";
import { useHydrated } from "@/lib/client/use-hydrated";
import { useModalDialog } from "@/lib/client/use-modal-dialog";
import { lazy, Suspense, useEffect, useState, type ReactNode } from "react";
import { PALETTE_LABEL as LABEL, SearchIcon, type PaletteLink } from "./palette-parts";
import { focusRing, Spinner } from "./ui";

export type { PaletteLink };

const loadPanel = () => import("./command-palette-panel");
const Palette = lazy(loadPanel);

export function CommandPalette({ pages, canCreate }: { pages: readonly PaletteLink[]; canCreate: boolean }) {
  const [open, setOpen] = useState(false);
  const shortcut = useShortcutLabel();
  // Until React runs the page, neither the button nor Ctrl+K has a listener: say so by disabling it.
  const hydrated = useHydrated();

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (!isPaletteShortcut(event)) return;
      void loadPanel();
      // The browser's own Ctrl+K (its search bar) gives way to the palette on these pages.
      event.preventDefault();
      setOpen((shown) => !shown);
    };
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, []);

  return (
    <>
      <button
        type="button"
        onClick={() => setOpen(true)}
        // The panel's code starts loading as the pointer or the focus comes near.
        onPointerEnter={() => void loadPanel()}
        onFocus={() => void loadPanel()}
        disabled={!hydrated}
        aria-haspopup="dialog"
        aria-keyshortcuts="Control+K Meta+K"
        className={`inline-flex items-center gap-2 rounded-md border border-slate-300 bg-white px-2.5 py-1.5 text-sm text-slate-700 shadow-sm hover:bg-slate-50 disabled:opacity-60 ${focusRing}`}
      >
        <SearchIcon />
        Find
        <kbd
          aria-hidden="true"
          className="hidden rounded border border-slate-300 bg-slate-50 px-1.5 font-sans text-xs text-slate-600 sm:inline"
        >
          {shortcut}
        </kbd>
      </button>
      <PaletteDialog open={open} onClose={() => setOpen(false)}>
        <Suspense
          fallback={
            <p className="flex items-center gap-2 p-4 text-sm text-slate-600">
              <Spinner className="size-3.5" /> Loading…
            </p>
          }
        >
          <Palette pages={pages} canCreate={canCreate} onDone={() => setOpen(false)} />
        </Suspense>
      </PaletteDialog>
    </>
  );
}

const focusInput = (dialog: HTMLDialogElement) => dialog.querySelector<HTMLInputElement>("[cmdk-input]");

/** The modal: opened over the page, closed by Escape, a click beside it or a choice; the focus goes back where it was. */
function PaletteDialog({ open, onClose, children }: { open: boolean; onClose: () => void; children: ReactNode }) {
  const ref = useModalDialog(open, focusInput);

  return (
    <dialog
      ref={ref}
      aria-label={LABEL}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      // A click on the backdrop lands on the dialog itself, never on its content.
      onClick={(event) => event.target === event.currentTarget && onClose()}
      className="mx-auto mt-[8vh] mb-auto w-[min(40rem,calc(100vw-1.5rem))] overflow-hidden rounded-lg border border-slate-200 bg-white p-0 text-slate-900 shadow-xl backdrop:bg-black/50"
    >
      {/* Mounted only while open: each opening starts from an empty search. */}
      {open && children}
    </dialog>
  );
}
