/**
 * Demo data for a company (docs/api.md#command-line-tools, `npm run seed`): job titles, properties, bots and some
 * hundred users in a reporting tree. Every record has an id derived from its name, and is written
 * with an upsert that only inserts, so running it again changes nothing.
 */
import { isBulkOfDuplicates } from "@/lib/kernel/errors";
import { oid, stableId, type ObjectId } from "@/lib/kernel/ids";
import { readBootstrapMarker } from "@/lib/resources/companies/repository";
import { idsByName, insertNamedOnce } from "@/lib/resources/reference/repository";
import { insertUsersOnce, newDoc } from "@/lib/resources/users/repository";
import { usersChanged } from "@/lib/resources/users/service";

const JOB_TITLES = [
  "Chief Executive",
  "Engineering Manager",
  "Software Engineer",
  "Designer",
  "Product Manager",
  "Sales Representative",
  "Support Agent",
  "Data Analyst",
  "Recruiter",
  "Accountant",
];
const PROPERTIES = [
  "Madrid office",
  "Bogotá office",
  "México office",
  "Remote",
  "Night shift",
  "Contractor",
  "Mentor",
  "On call",
];
const BOTS = ["Welcome bot", "Survey bot", "Reminder bot", "Helpdesk bot"];

const FIRST = [
  "Ana",
  "José",
  "María",
  "Lucía",
  "Martín",
  "Sofía",
  "Andrés",
  "Camila",
  "Íñigo",
  "Valentina",
  "Mateo",
  "Renée",
  "Zoë",
  "Björn",
  "Noé",
  "Chloé",
  "Raúl",
  "Inés",
  "Tomás",
  "Elena",
];
const LAST = [
  "Pérez",
  "García",
  "Rodríguez",
  "Núñez",
  "López",
  "Martínez",
  "Gómez",
  "Díaz",
  "Álvarez",
  "Muñoz",
  "Ortega",
  "Castaño",
  "Müller",
  "Ibáñez",
  "Serrano",
  "Peña",
];

/** Direct reports per manager in the demo reporting tree. */
const SPAN = 5;
const BATCH = 25;

export interface SeedOptions {
  /** Default: the company created by the bootstrap. */
  companyId?: string;
  users?: number;
  onStart?: (total: number) => void;
  onProgress?: (done: number) => void;
}

export interface SeedResult {
  companyId: string;
  created: { jobTitles: number; properties: number; bots: number; users: number };
}

export async function seedDemo(options: SeedOptions = {}): Promise<SeedResult> {
  const companyId = options.companyId ? oid(options.companyId) : await bootstrapCompany();
  const count = options.users ?? 300;
  const now = new Date();
  const id = (kind: string, key: string | number) => stableId(`seed:${companyId.toHexString()}:${kind}:${key}`);

  const named = async (kind: "jobTitles" | "properties" | "bots", key: string, names: string[]) => {
    let created = 0;
    try {
      created = await insertNamedOnce(
        kind,
        names.map((name) => ({ _id: id(key, name), company: companyId, name, createdAt: now, modifiedAt: now })),
      );
    } catch (error) {
      // A record of that name made by someone else: it is used as it is.
      if (!isBulkOfDuplicates(error)) throw error;
      created = (error as { result?: { upsertedCount?: number } }).result?.upsertedCount ?? 0;
    }
    const byName = await idsByName(kind, companyId, names);
    return { created, ids: names.map((name) => byName.get(name)).filter((x): x is ObjectId => Boolean(x)) };
  };
  const jobs = await named("jobTitles", "job", JOB_TITLES);
  const properties = await named("properties", "property", PROPERTIES);
  const bots = await named("bots", "bot", BOTS);
  const roles = await idsByName("accessRoles", companyId, ["Admin", "Member"]);
  const adminRole = roles.get("Admin");
  const memberRole = roles.get("Member");
  if (!adminRole || !memberRole) throw new Error("the company has no Admin and Member roles");

  const userIds = Array.from({ length: count }, (_, i) => id("user", i));
  const boss = (i: number) => (i === 0 ? undefined : Math.floor((i - 1) / SPAN));
  const children = (i: number) => Array.from({ length: SPAN }, (_, k) => i * SPAN + 1 + k).filter((c) => c < count);

  options.onStart?.(count);
  let createdUsers = 0;
  for (let start = 0; start < count; start += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, count - start) }, (_, k) => start + k);
    const docs = batch.map((i) => {
      const first = FIRST[i % FIRST.length];
      const last = LAST[Math.floor(i / FIRST.length) % LAST.length];
      const second = LAST[(i * 7) % LAST.length];
      const name = {
        displayName: `${first} ${last}`,
        names: first,
        lastName: last,
        secondLastName: i % 3 === 0 ? "" : second,
      };
      const email = `${ascii(first)}.${ascii(last)}.${i}@demo.example`;
      const b = boss(i);
      const peers = b === undefined ? [] : children(b).filter((c) => c !== i);
      // Groups of ten share one modifiedAt, so paging is exercised on ties.
      const modifiedAt = new Date(now.getTime() - Math.floor(i / 10) * 60_000);
      const isBot = i > 0 && i % 50 === 0;
      return newDoc({
        _id: userIds[i],
        name,
        email,
        accessRoles: [i < 3 ? adminRole : memberRole],
        properties: [
          properties.ids[i % properties.ids.length],
          ...(i % 4 === 0 ? [properties.ids[(i + 3) % properties.ids.length]] : []),
        ],
        job: jobs.ids[i === 0 ? 0 : 1 + (i % (jobs.ids.length - 1))],
        bot: isBot ? bots.ids[i % bots.ids.length] : null,
        phone: i % 2 === 0 ? `+34 600 ${String(100_000 + i).slice(-6)}` : null,
        isOnline: i % 9 === 0,
        termsConditions: i % 5 !== 0,
        companies: [
          {
            _id: id("membership", i),
            companyId,
            isActive: i % 37 !== 0 || i === 0,
            hierarchy: {
              boss: b === undefined ? [] : [userIds[b]],
              peers: peers.slice(0, 4).map((p) => userIds[p]),
              subordinate: children(i).map((c) => userIds[c]),
            },
          },
        ],
        createdAt: new Date(now.getTime() - (count - i) * 3_600_000),
        modifiedAt,
        extensions: { seeded: true },
      });
    });
    try {
      createdUsers += await insertUsersOnce(docs);
    } catch (error) {
      // An e-mail taken by a user of someone else: that demo user is skipped.
      if (!isBulkOfDuplicates(error)) throw error;
      createdUsers += (error as { result?: { upsertedCount?: number } }).result?.upsertedCount ?? 0;
    }
    options.onProgress?.(Math.min(start + BATCH, count));
  }
  await usersChanged([companyId]);
  return {
    companyId: companyId.toHexString(),
    created: { jobTitles: jobs.created, properties: properties.created, bots: bots.created, users: createdUsers },
  };
}

async function bootstrapCompany(): Promise<ObjectId> {
  const marker = await readBootstrapMarker();
  if (!marker?.companyId) throw new Error("no bootstrap company: name one with --company");
  return marker.companyId;
}

const ascii = (text: string) =>
  text
    .normalize("NFD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "");
