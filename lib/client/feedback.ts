/**
 * The words of every toast that answers an action on a record, one place for users, surveys and
 * reference data alike, so the same action reads the same way wherever it happens.
 */
export type RecordKind = "user" | "survey" | "access role" | "job title" | "property" | "bot" | "webhook";

export const feedback = {
  created: (kind: RecordKind) => `The ${kind} was created.`,
  saved: (kind: RecordKind) => `Your changes to the ${kind} were saved.`,
  unchanged: (kind: RecordKind) => `Nothing to save: the ${kind} was not changed.`,
  deactivated: (kind: RecordKind) => `The ${kind} was deactivated.`,
  activated: (kind: RecordKind) => `The ${kind} was activated.`,
  restored: (kind: RecordKind, revision: number) => `The ${kind} was restored to revision ${revision}.`,
  deleted: (kind: RecordKind) => `The ${kind} was deleted.`,
  failed: (kind: RecordKind) => `The ${kind} was not changed: the request failed.`,
};

let headingPending = false;

/**
 * After a save that navigates, the keyboard focus belongs on the new page's heading (not left
 * on <body>): the admin shell moves it there once that page has rendered its `h1`.
 */
export function focusHeadingAfterNavigation(): void {
  headingPending = true;
}

export function takeHeadingFocusRequest(): boolean {
  const pending = headingPending;
  headingPending = false;
  return pending;
}
