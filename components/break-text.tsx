import { Fragment } from "react";

/**
 * An e-mail (or any address-like text) that may wrap only after its separators: after `@`, and
 * before each `.`, `-`, `_` or `+`, never inside a word. A part longer than the whole line still
 * breaks (`overflow-wrap: break-word`), so nothing scrolls sideways on a phone.
 */
export function BreakAt({ text }: { text: string }) {
  const parts = text.split(/(?<=@)|(?=[.\-_+])/);
  return (
    <span className="break-words">
      {parts.map((part, index) => (
        <Fragment key={index}>
          {index > 0 && <wbr />}
          {part}
        </Fragment>
      ))}
    </span>
  );
}
