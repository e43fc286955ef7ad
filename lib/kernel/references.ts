import { ServiceError } from "./errors";
import { oid, type ObjectId } from "./ids";

/** The ids of one kind that a body names, each with its path, and how to learn which exist. */
export interface ReferenceGroup {
  refs: [path: string, id: string][];
  /** The ids among `ids` that name a record of the caller's company. */
  find: (ids: ObjectId[]) => Promise<Set<string>>;
}

/** `[path.i, id]` for each id of an optional list. */
export const listRefs = (path: string, ids: readonly string[] | undefined): [string, string][] =>
  (ids ?? []).map((id, index) => [`${path}.${index}`, id]);

/**
 * Every id a body names must be a record of the caller's company: one read per kind, and one
 * `400 unknown_reference` naming every path that fails (docs/api.md#errors).
 */
export async function checkReferences(groups: ReferenceGroup[]): Promise<void> {
  const details = (
    await Promise.all(
      groups.map(async ({ refs, find }) => {
        if (refs.length === 0) return [];
        const found = await find([...new Set(refs.map(([, id]) => id))].map(oid));
        return refs
          .filter(([, id]) => !found.has(id))
          .map(([path, id]) => ({ path, message: `${id} names no such record of the company` }));
      }),
    )
  ).flat();
  if (details.length > 0) {
    throw new ServiceError("unknown_reference", "The body names records that do not exist in the company.", details);
  }
}
