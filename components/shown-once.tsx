"use client";

import { useState, type ReactNode } from "react";
import { Button, Card, Field, inputClass } from "./ui";

/**
 * A secret the server answers only once (a new API key, a webhook's signing secret): shown in a
 * read-only field with a copy button and the warning that it will not be seen again, until the
 * person says they have copied it.
 */
export function ShownOnce({
  id,
  title,
  warning,
  label,
  noun,
  value,
  onDone,
  children,
}: {
  id: string;
  title: ReactNode;
  /** Starts with "Copy it now: you will not see it again." and says why. */
  warning: string;
  label: string;
  /** "key", "secret": the copy button and its status say it. */
  noun: string;
  value: string;
  onDone: () => void;
  /** How to use it, under the field. */
  children?: ReactNode;
}) {
  const [copied, setCopied] = useState(false);
  const [copyFailed, setCopyFailed] = useState(false);

  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
      setCopyFailed(false);
    } catch {
      setCopyFailed(true);
    }
  }

  const valueId = `${id}-value`;
  return (
    <Card className="border-amber-300 p-5 sm:p-6" aria-labelledby={id}>
      <h2 id={id} className="text-base font-semibold text-slate-900">
        {title}
      </h2>
      <p className="mt-1 text-sm font-medium text-amber-900">{warning}</p>
      <div className="mt-4 flex flex-col gap-2 sm:flex-row sm:items-end">
        <Field id={valueId} label={label} className="min-w-0 flex-1">
          <input
            id={valueId}
            readOnly
            value={value}
            onFocus={(event) => event.target.select()}
            className={`${inputClass} font-mono`}
          />
        </Field>
        <Button kind="primary" onClick={copy}>
          {copied ? "Copied" : `Copy ${noun}`}
        </Button>
      </div>
      <p role="status" className="mt-2 min-h-5 text-sm text-slate-600">
        {copied
          ? `The ${noun} is on the clipboard.`
          : copyFailed
            ? `The browser refused to copy: select the ${noun} and copy it by hand.`
            : ""}
      </p>
      {children && <div className="mt-2 text-sm text-slate-600">{children}</div>}
      <div className="mt-4">
        <Button onClick={onDone}>I have copied it</Button>
      </div>
    </Card>
  );
}
