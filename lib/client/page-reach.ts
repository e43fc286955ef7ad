import { MAX_PAGE_DEPTH } from "@/lib/base/schemas/common";

/**
 * The pages a list may offer by number: a page reaches at most MAX_PAGE_DEPTH records deep
 * (docs/api.md#paging). `pages` is undefined when the list gives no total; `capped` tells that
 * records lie past the last page offered (with no total: that the deepest page came back full).
 */
export function pageReach(
  page: number,
  limit: number,
  total: number | undefined,
  shown: number,
): { pages: number | undefined; deepest: number; capped: boolean; hasNext: boolean } {
  const deepest = Math.max(1, Math.floor(MAX_PAGE_DEPTH / limit));
  if (total === undefined)
    return {
      pages: undefined,
      deepest,
      capped: shown === limit && page >= deepest,
      hasNext: shown === limit && page < deepest,
    };
  const all = Math.max(1, Math.ceil(total / limit));
  const pages = Math.min(all, deepest);
  return { pages, deepest, capped: all > deepest, hasNext: page < pages };
}
