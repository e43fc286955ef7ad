/**
 * The `Link: <…>; rel="next"` header of a list answer whose `data.next` holds a cursor
 * (docs/api.md#cursor-paging): the request's own path and query with `cursor` (or the list's own
 * parameter, `after` for events) set to it and `page` left out. It is a relative reference (RFC 8288 resolves it against the request's URL), so it
 * stays right behind a proxy that rewrites the host.
 */
export function addNextLink(response: Response, url: URL, body: unknown, param = "cursor"): void {
  const next = (body as { data?: { next?: unknown } } | null)?.data?.next;
  if (typeof next !== "string" || response.status !== 200) return;
  const params = new URLSearchParams(url.search);
  params.delete("page");
  params.set(param, next);
  response.headers.set("Link", `<${url.pathname}?${params.toString()}>; rel="next"`);
}
