/** Typed react-query hooks of saved views (lib/resources/views/contract.ts, docs/api.md#saved-views) and their links. */
import type { CreateViewBody, UpdateViewBody, ViewRecord, ViewResource } from "@/lib/resources/views/contract";
import * as views from "@/lib/resources/views/contract";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import { request } from "./api";

/** The cache keys of saved views: everything under `"views"`, refreshed at once after a change. */
const viewKeys = {
  all: ["views"] as const,
  list: (resource: ViewResource) => ["views", resource] as const,
  detail: (id: string | null) => ["views", "record", id] as const,
};
/** The URL parameter that names the saved view a list page shows. */
export const VIEW_PARAM = "view";
/** Parameters of a page's URL that are not part of what a view shows. */
const NOT_SAVED = new Set([VIEW_PARAM, "page", "cursor"]);

export function useViews(resource: ViewResource) {
  return useQuery({
    queryKey: viewKeys.list(resource),
    queryFn: ({ signal }) => request(views.list, { query: { resource, limit: 100 }, signal }),
    select: (body) => body.data.views,
  });
}

export function useView(id: string | null) {
  return useQuery({
    queryKey: viewKeys.detail(id),
    queryFn: ({ signal }) => request(views.readOne, { params: { id: id! }, signal }),
    enabled: Boolean(id),
    retry: false,
  });
}

/** Save, change and delete; each leaves the lists of views as the server now has them. */
export function useViewActions() {
  const client = useQueryClient();
  const refresh = () => client.invalidateQueries({ queryKey: viewKeys.all });
  return {
    save: useMutation({
      mutationFn: (body: z.input<typeof CreateViewBody>) => request(views.create, { body }),
      onSuccess: refresh,
    }),
    update: useMutation({
      mutationFn: ({ id, body }: { id: string; body: z.input<typeof UpdateViewBody> }) =>
        request(views.update, { params: { id }, body }),
      onSuccess: refresh,
    }),
    remove: useMutation({
      mutationFn: (id: string) => request(views.remove, { params: { id } }),
      // The deleted view is not read again: the page that shows it still names it until it drops
      // the link's `view=`, and reading it then would be a 404 in the console.
      onSuccess: (_, id) =>
        client.invalidateQueries({
          queryKey: viewKeys.all,
          predicate: (query) => query.queryKey.join("/") !== viewKeys.detail(id).join("/"),
        }),
    }),
  };
}

/** The query a page's URL shows, as a view keeps it: without paging and without the view's own marker. */
export function savedQuery(params: URLSearchParams): string {
  const kept = new URLSearchParams();
  for (const [key, value] of params) if (!NOT_SAVED.has(key)) kept.append(key, value);
  return kept.toString();
}

/**
 * The link of a view: the list's URL with the view's query and the view's id. The query makes the
 * link show the same filters to anyone, even once the view is deleted or for a private one; the
 * id names the view on the page (docs/api.md#saved-views).
 */
export function viewHref(path: string, view: Pick<ViewRecord, "_id" | "query">): string {
  const params = new URLSearchParams(view.query);
  params.set(VIEW_PARAM, view._id);
  return `${path}?${params}`;
}
