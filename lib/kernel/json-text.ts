/**
 * Values already written as JSON, where they were read: a read worker writes a page's records
 * (docs/architecture.md#read-workers), so that the HTTP thread neither rebuilds them from the
 * worker's message nor writes them again; it splices their text into the answer's body.
 */
import { randomBytes } from "node:crypto";

// What stands for a text while the body around it is written. No client can write it into a
// value of its own: it is this process's secret, and every occurrence of it is replaced.
const NONCE = randomBytes(12).toString("hex");
const MARKER = new RegExp(`"\\\\u0000${NONCE}:(\\d+)"`, "g");

let writing: string[] | undefined;

/** A value of type `T` as JSON text. */
export class JsonText<T = unknown> {
  declare private readonly value?: T;

  constructor(readonly text: string) {}

  /** Within {@link stringify}, a marker of this text; anywhere else, the value itself. */
  toJSON(): unknown {
    if (!writing) return JSON.parse(this.text);
    writing.push(this.text);
    return `\u0000${NONCE}:${writing.length - 1}`;
  }
}

/**
 * One record as a read worker writes it for its answer, with its tag (docs/api.md#conditional-requests):
 * `text` is `null` when there is no such record.
 */
export interface WrittenRecord {
  text: string | null;
  tag: string;
}

/** `JSON.stringify(value)`, each {@link JsonText} in it written as its text. */
export function stringify(value: unknown): string {
  const outer = writing;
  const texts: string[] = [];
  writing = texts;
  let json: string;
  try {
    json = JSON.stringify(value);
  } finally {
    writing = outer;
  }
  return texts.length === 0 ? json : json.replace(MARKER, (_, index: string) => texts[Number(index)]);
}
