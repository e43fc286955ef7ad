/**
 * A URL as it is shown rather than used (docs/security.md#secrets-in-urls): its userinfo
 * (`user:password@`), every query value and its fragment read `•••`, so that a webhook's list, its
 * record, its audit entries and mails never show the credentials a receiver put in its address. The
 * scheme, host, port, path and the query's keys stay, to tell one URL from another.
 */

/** What stands for a hidden part. */
const MASK = "•••";

/** The mask as a URL may carry it: itself, or percent-encoded by a client that encoded it. */
const MASKED = /•|%E2%80%A2/i;

/** Whether a URL holds the mask (so it is a shown URL, not one that can be used). */
export const holdsMask = (text: string): boolean => MASKED.test(text);

/**
 * The URL with its secrets masked: `https://•••@hooks.example.com/x?token=•••&a=•••`. A URL with
 * nothing to hide is answered as it is; text that is not a URL is hidden whole.
 */
export function maskUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return MASK;
  }
  if (!url.username && !url.password && !url.search && !url.hash) return text;
  const userinfo = url.username || url.password ? `${MASK}@` : "";
  // Each `&`-separated part keeps its key; a part without `=` may be a bare token, so it is hidden whole.
  const query = url.search
    ? `?${url.search
        .slice(1)
        .split("&")
        .map((part) => (part === "" ? "" : part.includes("=") ? `${part.slice(0, part.indexOf("="))}=${MASK}` : MASK))
        .join("&")}`
    : "";
  const fragment = url.hash ? `#${MASK}` : "";
  return `${url.protocol}//${userinfo}${url.host}${url.pathname}${query}${fragment}`;
}
