/**
 * `npm run bench:api -- --scale [--sizes 10000,100000,1000000]`: the growth table
 * (docs/benchmarks.md#growth). The benchmark company grows through each size, beside a second
 * company of the same size (so that every filter must keep the other company's users out), and at
 * each size the same cases run, each alternated with slices of the floor (lib/tools/bench/figures.ts):
 * the default page, a deep page by cursor, a two-letter search with `count=true`, a filter on
 * access role and status with `count=true`, a read by id and a create. Prints a table per size,
 * then each case's req/s and share of the floor per size, with the ratio from the smallest size
 * to the largest. Asserts nothing.
 */
import { type Db, ObjectId } from "mongodb";
import { type BenchTable, type Figures, table } from "./figures";
import { insertBenchUsers } from "./users";

export interface ScaleOptions {
  base: string;
  headers: Record<string, string>;
  /** Signs in again and puts the new token in `headers` (a browser token lasts 15 minutes; growing to a million takes longer). */
  renewToken: () => Promise<void>;
  database: Db;
  companyId: ObjectId;
  roleId: ObjectId;
  sizes: number[];
  newTable: () => BenchTable;
  setting: () => string;
}

const err = (line: string) => process.stderr.write(`${line}\n`);

/** How deep the deep page is: half the company, at most 200,000 records (so the walk to it stays short). */
const deepOffset = (size: number) => Math.min(200_000, Math.floor(size / 20) * 10);

const CASES = [
  "default page",
  "deep page by cursor",
  "search=ma&count=true",
  "accessRole+isActive=false&count=true",
  "read by id",
  "POST /v2/users",
] as const;

/**
 * The `next` of the page that ends `offset` records into `path`'s list (offset a multiple of 10),
 * walked by cursor: 100 records a page, then 10 (a cursor holds whatever `limit` the next page asks).
 */
export async function cursorAt(
  base: string,
  path: string,
  offset: number,
  headers: Record<string, string>,
): Promise<string> {
  const separator = path.includes("?") ? "&" : "?";
  let cursor: string | undefined;
  for (let at = 0; at < offset;) {
    const limit = offset - at >= 100 ? 100 : 10;
    const response = await fetch(
      `${base}${path}${separator}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      { headers },
    );
    const body = (await response.json()) as { data?: { next?: string | null } };
    if (!response.ok || !body.data?.next)
      throw new Error(
        `no cursor ${at + limit} records into ${path}: ${response.status} ${JSON.stringify(body).slice(0, 200)}`,
      );
    cursor = body.data.next;
    at += limit;
  }
  if (!cursor) throw new Error("a cursor needs an offset of at least 10");
  return cursor;
}

export async function benchScale({
  base,
  headers,
  renewToken,
  database,
  companyId,
  roleId,
  sizes,
  newTable,
  setting,
}: ScaleOptions): Promise<void> {
  const other = { companyId: new ObjectId(), roleId: new ObjectId() };
  const fold = (text: string) =>
    text
      .normalize("NFD")
      .replace(/\p{M}+/gu, "")
      .toLowerCase();
  const runId = Date.now().toString(36);
  const ids: ObjectId[] = [];
  const bySize: { size: number; rows: Figures[]; firstCounts: string }[] = [];
  let loaded = 0;
  let serial = 0;
  const create = async () => {
    const response = await fetch(`${base}/v2/users`, {
      method: "POST",
      headers: { ...headers, admin: "true", "content-type": "application/json" },
      body: JSON.stringify({
        email: `scale.${runId}.forget.${serial++}@bench.example`,
        accessRoles: [roleId.toHexString()],
      }),
    });
    if (response.status !== 201) throw new Error(`POST /v2/users answered ${response.status}`);
  };

  for (const size of sizes) {
    err(`Growth: ${size} users in the benchmark company and ${size} in another.`);
    ids.push(
      ...(await insertBenchUsers(database, {
        companyId,
        roleId,
        count: size,
        from: loaded,
        batch: 1000,
        vary: (i, { names, lastName }) => ({ email: `${fold(names)}.${fold(lastName)}.${i}@scale.example` }),
      })),
    );
    await insertBenchUsers(database, {
      companyId: other.companyId,
      roleId: other.roleId,
      count: size,
      from: loaded,
      batch: 1000,
      vary: (i, { names, lastName }) => ({ email: `${fold(names)}.${fold(lastName)}.${i}@other.example` }),
    });
    loaded = size;
    await renewToken();
    // The users above were written past the server: the stored counts are dropped, so the first
    // count=true of each filter below counts every match, as on a new database (docs/api.md#counters).
    await create();
    await database.collection("listCounts").deleteMany({ count: { $exists: true } });

    const search = `${base}/v2/users?search=ma&count=true`;
    const filter = `${base}/v2/users?accessRole=${roleId.toHexString()}&isActive=false&count=true`;
    const firsts: string[] = [];
    for (const [label, url] of [
      ["search=ma", search],
      ["accessRole+isActive=false", filter],
    ] as const) {
      const started = performance.now();
      const response = await fetch(url, { headers });
      const counter = ((await response.json()) as { data?: { counter?: number } }).data?.counter;
      firsts.push(`${label} ${(performance.now() - started).toFixed(0)} ms (counter ${counter})`);
    }
    err(`  first count=true requests: ${firsts.join("; ")}`);

    const offset = deepOffset(size);
    const cursor = await cursorAt(base, "/v2/users?isActive=all", offset, headers);
    const users = newTable();
    let next = 0;
    const rows = [
      await users.measure(CASES[0], { url: `${base}/v2/users`, headers }),
      await users.measure(CASES[1], {
        url: `${base}/v2/users?isActive=all&limit=10&cursor=${encodeURIComponent(cursor)}`,
        headers,
      }),
      await users.measure(CASES[2], { url: search, headers }),
      await users.measure(CASES[3], { url: filter, headers }),
      await users.measure(CASES[4], {
        url: `${base}/v2/users`,
        headers,
        requests: [{ setupRequest: (request) => ({ ...request, path: `/v2/users/${ids[next++ % ids.length]}` }) }],
      }),
      await users.measure(CASES[5], {
        url: `${base}/v2/users`,
        method: "POST",
        headers: { ...headers, admin: "true", "content-type": "application/json" },
        requests: [
          {
            setupRequest: (request) => ({
              ...request,
              body: JSON.stringify({
                email: `scale.${runId}.${serial++}@bench.example`,
                accessRoles: [roleId.toHexString()],
              }),
            }),
          },
        ],
      }),
    ];
    // The users created above are the newest, so the next size's pages would walk past them all
    // before reaching its own: each size measures the grown users alone (docs/benchmarks.md#growth).
    const created = await database
      .collection("users")
      .deleteMany({ email: { $regex: `^scale\\.${runId}\\.` }, "companies.companyId": companyId });
    err(`  removed the ${created.deletedCount} users the create case made`);
    const lines = [
      "",
      `bench:api --scale — ${size} users in the company and ${size} in another; the deep page starts ${offset} records in; ${setting()}`,
      "",
      ...table([users.floor.figures(), ...rows]),
      "",
      `first count=true requests after the growth (no count stored yet): ${firsts.join("; ")}`,
      "",
    ];
    process.stdout.write(`${lines.join("\n")}\n`);
    bySize.push({ size, rows: [users.floor.figures(), ...rows], firstCounts: firsts.join("; ") });
  }

  if (bySize.length < 2) return;
  const smallest = bySize[0];
  const largest = bySize[bySize.length - 1];
  const label = (size: number) =>
    size >= 1_000_000 ? `${size / 1_000_000}M` : size >= 1000 ? `${size / 1000}k` : String(size);
  const names = ["floor", ...CASES];
  const lines = [
    "",
    `bench:api --scale — growth from ${label(smallest.size)} to ${label(largest.size)} users a company (two companies), ${setting()}`,
    "",
    `| case | ${bySize.map((s) => `${label(s.size)}: req/s, p50 ms, % of floor`).join(" | ")} | ${label(largest.size)}/${label(smallest.size)} req/s | ${label(largest.size)}/${label(smallest.size)} % of floor | within 1.5× |`,
    `|---|${bySize.map(() => "---|").join("")}---|---|---|`,
  ];
  names.forEach((name, index) => {
    const cells = bySize.map(
      (s) => `${s.rows[index].rps.toFixed(0)}, ${s.rows[index].p50}, ${(100 * s.rows[index].ofFloor).toFixed(0)}%`,
    );
    const rpsRatio = largest.rows[index].rps / smallest.rows[index].rps;
    const shareRatio = largest.rows[index].ofFloor / smallest.rows[index].ofFloor;
    // A case within 1.5× keeps at least two thirds of its share of the floor (the share, not raw req/s, evens out a shared machine's drift).
    const within = index === 0 ? "" : shareRatio >= 1 / 1.5 ? "yes" : "NO";
    lines.push(`| ${name} | ${cells.join(" | ")} | ${rpsRatio.toFixed(2)} | ${shareRatio.toFixed(2)} | ${within} |`);
  });
  lines.push("", ...bySize.map((s) => `first count=true at ${label(s.size)}: ${s.firstCounts}`), "");
  process.stdout.write(`${lines.join("\n")}\n`);
}
