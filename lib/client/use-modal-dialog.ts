import { useEffect, useRef } from "react";

/**
 * A native modal <dialog> shown while `open`: opened with showModal() (the browser keeps the focus
 * inside it and turns Escape into a `cancel` event), `first` names what takes the focus then, and
 * whichever way it closes, the focus returns to where it was before it opened.
 */
export function useModalDialog(open: boolean, first: (dialog: HTMLDialogElement) => HTMLElement | null | undefined) {
  const ref = useRef<HTMLDialogElement>(null);
  const returnTo = useRef<Element | null>(null);

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      returnTo.current = document.activeElement;
      dialog.showModal();
      first(dialog)?.focus();
    } else if (!open && dialog.open) {
      dialog.close();
    }
  }, [open, first]);

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const restore = () => {
      const target = returnTo.current;
      returnTo.current = null;
      if (target instanceof HTMLElement && target.isConnected) target.focus();
    };
    dialog.addEventListener("close", restore);
    return () => dialog.removeEventListener("close", restore);
  }, []);

  return ref;
}
