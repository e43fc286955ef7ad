/** The users that bench:api and bench:export load, written straight to the collection. */
import { FIRST_NAMES, LAST_NAMES } from "@/lib/base/shared/demo-names";
import { type NewUser, newDoc } from "@/lib/resources/users/repository";
import { Presets, SingleBar } from "cli-progress";
import { type Db, ObjectId } from "mongodb";

export interface BenchUsers {
  companyId: ObjectId;
  roleId: ObjectId;
  count: number;
  /** The index of the first user to insert (default 0): a company grows from `from` to `count`. */
  from?: number;
  /** Users a write. */
  batch: number;
  /** The fields one benchmark sets beyond the name: the n-th user's e-mail at least. */
  vary: (n: number, name: { names: string; lastName: string }) => Pick<NewUser, "email"> & Partial<NewUser>;
}

/**
 * `count` members of the company with the role, each built by newDoc(): names from a short list,
 * every twentieth inactive, ten a second of history (so that many share a `modifiedAt`). Answers
 * the id of every hundredth, in order.
 */
export async function insertBenchUsers(
  database: Db,
  { companyId, roleId, count, from = 0, batch, vary }: BenchUsers,
): Promise<ObjectId[]> {
  const ids: ObjectId[] = [];
  const users = database.collection("users");
  const bar = new SingleBar(
    {
      stream: process.stderr,
      format: "inserting users [{bar}] {value}/{total}",
      noTTYOutput: true,
      notTTYSchedule: 5000,
    },
    Presets.shades_classic,
  );
  const started = performance.now();
  bar.start(count, from);
  const now = Date.now();
  for (let start = from; start < count; start += batch) {
    const docs = [];
    for (let i = start; i < Math.min(start + batch, count); i++) {
      const names = FIRST_NAMES[i % FIRST_NAMES.length];
      const lastName = LAST_NAMES[Math.floor(i / FIRST_NAMES.length) % LAST_NAMES.length];
      const _id = new ObjectId();
      if (i % 100 === 0) ids.push(_id);
      docs.push(
        newDoc({
          _id,
          name: { displayName: `${names} ${lastName}`, names, lastName, secondLastName: "" },
          accessRoles: [roleId],
          companies: [
            {
              _id: new ObjectId(),
              companyId,
              isActive: i % 20 !== 0,
              hierarchy: { boss: [], peers: [], subordinate: [] },
            },
          ],
          createdAt: new Date(now - (count - i) * 100),
          modifiedAt: new Date(now - Math.floor((count - i) / 10) * 1000),
          ...vary(i, { names, lastName }),
        }),
      );
    }
    await users.insertMany(docs, { ordered: false });
    bar.update(Math.min(start + batch, count));
  }
  bar.stop();
  process.stderr.write(`Inserted ${count - from} users in ${((performance.now() - started) / 1000).toFixed(1)} s.\n`);
  return ids;
}
