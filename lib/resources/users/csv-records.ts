/**
 * The records of a CSV file (RFC 4180), streamed from its chunks with a bound on each record's size
 * (docs/api.md#import): a record over `maxBytes` is reported, with the line it starts on, and its
 * bytes are passed over without being kept, so a huge cell costs no memory; the records after it
 * are read as usual. csv-parse cannot do this: with `max_record_size` and `skip_records_with_error`
 * it drops the rest of the chunk after the oversized record.
 *
 * The rules: cells are separated by `,`; a record ends at `\n`, `\r\n` or a lone `\r` outside
 * quotes; a cell that starts with `"` is quoted, `""` inside it is one `"`, and it may hold
 * separators and line breaks; a UTF-8 byte order mark is skipped; an empty line is no record. A
 * quote inside a cell that does not start with one, text after a closing quote, and a quote never
 * closed make the record unreadable (reported, the next record read as usual).
 */

export type CsvRecord =
  /** `line`: the line the record starts on (1-based). */
  { line: number; cells: string[]; error?: undefined } | { line: number; cells?: undefined; error: string };

const QUOTE = 0x22;
const COMMA = 0x2c;
const CR = 0x0d;
const LF = 0x0a;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** Where the reader is within a record. */
const enum At {
  /** At the start of a cell. */
  CellStart,
  /** In a cell that did not start with a quote. */
  Plain,
  /** In a quoted cell. */
  Quoted,
  /** Just after a quote inside a quoted cell: a second quote, or the cell's end. */
  QuoteInQuoted,
  /** After a quoted cell's closing quote. */
  Closed,
}

export async function* csvRecords(source: AsyncIterable<Buffer>, maxBytes: number): AsyncGenerator<CsvRecord> {
  let at = At.CellStart;
  let line = 1;
  /** The line the record being read starts on. */
  let start = 1;
  // Each byte of a record counts, the quotes and separators too: `maxBytes` bounds what a record costs to read.
  /** Bytes of the record so far; 0 means no record has started. */
  let size = 0;
  let cells: string[] = [];
  /** The current cell's bytes, as slices of the chunks. */
  let parts: Buffer[] = [];
  let problem: string | undefined;
  /** A `\r` just ended a line: a `\n` right after it is the same line break. */
  let afterCr = false;
  let first = true;
  /** Bytes of a possible byte order mark held until the first three arrive. */
  let head = Buffer.alloc(0);

  const tooLarge = () => size > maxBytes;
  const endCell = () => {
    if (!tooLarge() && problem === undefined)
      cells.push(parts.length === 1 ? parts[0].toString("utf8") : Buffer.concat(parts).toString("utf8"));
    parts = [];
  };
  const endRecord = (): CsvRecord | undefined => {
    const empty = size === 0;
    endCell();
    const record: CsvRecord | undefined = empty
      ? undefined
      : tooLarge()
        ? { line: start, error: `the record is larger than ${maxBytes} bytes, the most a row may hold` }
        : problem !== undefined
          ? { line: start, error: problem }
          : { line: start, cells };
    cells = [];
    size = 0;
    problem = undefined;
    at = At.CellStart;
    return record;
  };
  const fail = (message: string) => {
    problem ??= message;
    parts = [];
  };

  for await (let chunk of source) {
    if (first) {
      head = Buffer.concat([head, chunk]);
      if (head.length < BOM.length && BOM.subarray(0, head.length).equals(head)) continue;
      first = false;
      chunk = head.subarray(0, BOM.length).equals(BOM) ? head.subarray(BOM.length) : head;
    }
    let from = 0;
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i];
      let lineBreak = byte === LF || byte === CR;
      if (afterCr && byte === LF) {
        afterCr = false;
        // The `\n` of a `\r\n` that ended a record or an empty line; in a quoted cell, a byte of it.
        if (at !== At.Quoted) {
          from = i + 1;
          continue;
        }
        lineBreak = false;
      } else {
        afterCr = lineBreak && byte === CR;
        if (lineBreak) line++;
      }
      if (size === 0 && lineBreak) {
        // An empty line: no record.
        from = i + 1;
        continue;
      }
      if (size === 0) start = line;
      // The line break that ends a record is not the record's.
      if (!lineBreak || at === At.Quoted) size++;
      const keep = !tooLarge() && problem === undefined;
      switch (at) {
        case At.QuoteInQuoted:
          if (byte === QUOTE) {
            // `""`: one quote in the cell.
            at = At.Quoted;
            from = i;
            break;
          }
          at = At.Closed;
        // falls through: the quote before closed the cell
        case At.Closed:
        case At.CellStart:
        case At.Plain:
          if (byte === COMMA || lineBreak) {
            if (at === At.Plain && keep) parts.push(chunk.subarray(from, i));
            if (byte === COMMA) {
              endCell();
              at = At.CellStart;
            } else {
              const record = endRecord();
              if (record) yield record;
            }
            from = i + 1;
          } else if (at === At.CellStart && byte === QUOTE) {
            at = At.Quoted;
            from = i + 1;
          } else if (at === At.Closed) {
            fail("a quoted cell goes on after its closing quote");
          } else if (byte === QUOTE) {
            fail("a quote inside a cell that does not start with one");
            at = At.Plain;
          } else if (at === At.CellStart) {
            at = At.Plain;
            from = i;
          }
          break;
        case At.Quoted:
          if (byte === QUOTE) {
            if (keep) parts.push(chunk.subarray(from, i));
            at = At.QuoteInQuoted;
          }
          break;
      }
      if (tooLarge()) parts = [];
    }
    // What the chunk leaves of the current cell is kept, unless the record is already too large.
    if ((at === At.Plain || at === At.Quoted) && from < chunk.length && !tooLarge() && problem === undefined)
      parts.push(chunk.subarray(from));
  }
  // A file shorter than a byte order mark that is the start of one holds nothing else.
  if (first) return;
  // (`as At`: the compiler does not see the loop above set `at` to Quoted.)
  if ((at as At) === At.Quoted) fail("a quoted cell is never closed");
  const record = endRecord();
  if (record) yield record;
}
