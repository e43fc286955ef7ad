import { parse } from "csv-parse/sync";
import { stringify } from "csv-stringify/sync";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type CsvRecord, csvRecords } from "./csv-records";

/** The records of `text` sent in chunks cut at `cuts` (byte offsets), so every state meets a chunk's end. */
async function read(text: string | Buffer, maxBytes = 1024, cuts: number[] = []): Promise<CsvRecord[]> {
  const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text);
  const at = [
    0,
    ...[...new Set(cuts)].filter((cut) => cut > 0 && cut < bytes.length).sort((a, b) => a - b),
    bytes.length,
  ];
  const records: CsvRecord[] = [];
  for await (const record of csvRecords(
    (async function* () {
      for (let i = 0; i + 1 < at.length; i++) yield bytes.subarray(at[i], at[i + 1]);
    })(),
    maxBytes,
  ))
    records.push(record);
  return records;
}

describe("the CSV reader of imports", () => {
  it("reads what csv-stringify writes as csv-parse reads it, whatever the chunks, cells with separators, quotes and line breaks included", async () => {
    const cell = fc.oneof(
      fc.string(),
      fc.constantFrom("", "a,b", 'say "hi"', "two\nlines", "cr\r\nlf", "ünï €", '"', "\r"),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(cell, { minLength: 2, maxLength: 2 }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.nat(400)),
        fc.boolean(),
        async (rows, cuts, crlf) => {
          // csv-stringify leaves a line break that is not its record delimiter unquoted, which a reader takes for one: such cells are quoted here.
          const text = stringify(rows, { record_delimiter: crlf ? "windows" : "unix", quoted_match: /[\r\n]/ });
          const expected = parse(text, { skip_empty_lines: true, relax_column_count: true }) as string[][];
          const records = await read(text, 1 << 20, cuts);
          expect(records.map((record) => record.cells)).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("says the line each record starts on, skipping empty lines, a BOM and any kind of line break", async () => {
    const text = '\uFEFFa,b\r\n\r\n1,"x\ny"\n\n2,z\r3,w';
    for (const cuts of [[], [1], [2], [3], [5], [6], [12], [13], [14]]) {
      expect(await read(text, 1024, cuts), String(cuts)).toEqual([
        { line: 1, cells: ["a", "b"] },
        { line: 3, cells: ["1", "x\ny"] },
        { line: 6, cells: ["2", "z"] },
        { line: 7, cells: ["3", "w"] },
      ]);
    }
    expect(await read("")).toEqual([]);
    expect(await read("\uFEFF")).toEqual([]);
  });

  it("reports a record larger than the bound with its line, keeps nothing of it, and reads the records after it", async () => {
    const huge = "x".repeat(5000);
    const text = `h1,h2\n1,"${huge}\n${huge}"\n2,ok\n3,${huge}\n4,"a""b"\n`;
    for (const cuts of [[], [7], [100, 2000, 5003, 5004, 10_010], [...Array(200).keys()].map((n) => n * 97)]) {
      expect(await read(text, 1000, cuts), String(cuts.length)).toEqual([
        { line: 1, cells: ["h1", "h2"] },
        { line: 2, error: "the record is larger than 1000 bytes, the most a row may hold" },
        { line: 4, cells: ["2", "ok"] },
        { line: 5, error: "the record is larger than 1000 bytes, the most a row may hold" },
        { line: 6, cells: ["4", 'a"b'] },
      ]);
    }
    // Exactly at the bound is read.
    expect(await read(`${"y".repeat(10)}\n`, 10)).toEqual([{ line: 1, cells: ["y".repeat(10)] }]);
    expect(await read(`${"y".repeat(11)}\n`, 10)).toEqual([
      { line: 1, error: "the record is larger than 10 bytes, the most a row may hold" },
    ]);
  });

  it("reports a record with a misplaced quote or a quote never closed, and reads on", async () => {
    expect(await read('a,b"c\n"x"y,z\nok,1\n"open,2\n')).toEqual([
      { line: 1, error: "a quote inside a cell that does not start with one" },
      { line: 2, error: "a quoted cell goes on after its closing quote" },
      { line: 3, cells: ["ok", "1"] },
      { line: 4, error: "a quoted cell is never closed" },
    ]);
  });
});
