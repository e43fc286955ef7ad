/** What the command palette's button and its panel share: the search icon, the dialog's name, a page link. */

/** A page of the menu, offered as "Go to …". */
export interface PaletteLink {
  href: string;
  label: string;
}

export const PALETTE_LABEL = "Find users, surveys and pages";

export function SearchIcon() {
  return (
    <svg
      aria-hidden="true"
      viewBox="0 0 20 20"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      className="size-4 shrink-0 text-slate-500"
    >
      <circle cx="8.5" cy="8.5" r="5.5" />
      <path d="m13 13 4 4" strokeLinecap="round" />
    </svg>
  );
}
