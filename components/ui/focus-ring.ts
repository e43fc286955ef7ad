/** The visible focus ring of every control; its own module so the kit's parts can share it without importing each other. */
export const focusRing = "focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600";
