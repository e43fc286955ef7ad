import { useEffect, useState } from "react";

/**
 * A search box whose committed value lives in the URL: typing commits after a pause, and a URL
 * change from elsewhere (Back, Forward, a link) refills the box. A value this box committed that
 * the URL has not shown yet does not overwrite what is typed meanwhile.
 */
export function useSearchBox(value: string, commit: (text: string) => void, delayMs = 300) {
  const [text, setText] = useState(value);
  const [followed, setFollowed] = useState(value);
  const [pending, setPending] = useState<string | null>(null);
  if (value !== followed) {
    setFollowed(value);
    if (value === pending) setPending(null);
    else setText(value);
  }

  useEffect(() => {
    if (text === value || text === pending) return;
    const timer = setTimeout(() => {
      setPending(text);
      commit(text);
    }, delayMs);
    return () => clearTimeout(timer);
  });

  return [text, setText] as const;
}
