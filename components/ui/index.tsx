/**
 * The kit every admin page is made of, so pages look and behave alike (docs/architecture.md, the
 * admin pages): buttons and links with a visible focus ring, labelled fields and checkboxes, cards,
 * badges, the loading / error / empty cascade of a list (`ListView`), the one before / after table
 * (`ChangeTable`) and the one popover. The heavier parts are imported by their own module, so a
 * page that does not use them does not load them: the table (`@/components/ui/data-table`), the
 * notices (`@/components/ui/toast`), the dialogs (`@/components/ui/dialog`) and the error boxes
 * (`@/components/ui/error-state`, `@/components/ui/error-message`).
 */
export { Button, LinkButton, buttonClass, linkClass } from "./button";
export { ChangeTable } from "./change-table";
export { Checkbox } from "./checkbox";
export { CheckboxGroup, Field, GroupError, RecordSelect, SearchField, Select, describedBy, inputClass } from "./field";
export { focusRing } from "./focus-ring";
export { ListView } from "./list-view";
export { ActiveBadge, BackLink, Badge, Card, Facts, PageHeader } from "./page";
export { Popover } from "./popover";
export { DateTime, EmptyState, Loading, Spinner } from "./status";
