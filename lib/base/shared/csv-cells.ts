/**
 * CSV cells that a spreadsheet would run as a formula (docs/security.md#csv-exports), made safe on
 * export and restored on import, so that an exported file imports back to the same values.
 *
 * A cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return, after any number of `'`,
 * gains one leading `'`; the import removes exactly one `'` from a cell of that shape. The `'`s are
 * counted so that a value which itself starts with `'=` survives the round trip too.
 */
const FORMULA_LIKE = /^'*[=+\-@\t\r]/;

/** The cell as written to a CSV export. */
export const protectCell = (value: string): string => (FORMULA_LIKE.test(value) ? `'${value}` : value);

/** The value of a cell written by {@link protectCell}. */
export const restoreCell = (cell: string): string =>
  cell.startsWith("'") && FORMULA_LIKE.test(cell) ? cell.slice(1) : cell;
