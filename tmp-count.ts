import { MongoClient, ObjectId } from "mongodb";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startEmbeddedMongo } from "@/lib/embedded-mongo";
import { insertBenchUsers } from "@/lib/tools/bench/users";

async function main() {
const N = Number(process.env.N ?? 100000);
const dir = process.env.DIR ?? mkdtempSync(path.join(tmpdir(), "countprof-"));
const fold = (t: string) => t.normalize("NFD").replace(/\p{M}+/gu, "").toLowerCase();
const db = await startEmbeddedMongo({ dir });
const client = await MongoClient.connect(db.localUri);
const database = client.db("app");
const users = database.collection("users");
const meta = database.collection("meta");
let companyId: ObjectId, roleId: ObjectId;
const m = await meta.findOne({ _id: "bench" as never });
if (!m) {
  await users.createIndex({ search: 1 });
  await users.createIndex({ "companies.companyId": 1, modifiedAt: 1, _id: 1 });
  await users.createIndex({ accessRoles: 1 });
  await users.createIndex({ email: 1 }, { unique: true });
  companyId = new ObjectId(); roleId = new ObjectId();
  const other = new ObjectId(), otherRole = new ObjectId();
  await insertBenchUsers(database, { companyId, roleId, count: N, batch: 1000, vary: (i, { names, lastName }) => ({ email: `${fold(names)}.${fold(lastName)}.${i}@scale.example` }) });
  await insertBenchUsers(database, { companyId: other, roleId: otherRole, count: N, batch: 1000, vary: (i, { names, lastName }) => ({ email: `${fold(names)}.${fold(lastName)}.${i}@other.example` }) });
  await meta.insertOne({ _id: "bench" as never, companyId, roleId });
} else { companyId = m.companyId; roleId = m.roleId; }
const filters = {
  search: { "companies.companyId": companyId, companies: { $elemMatch: { companyId, isActive: { $ne: false } } }, $and: [{ search: { $regex: "^ma" } }] },
  role: { "companies.companyId": companyId, companies: { $elemMatch: { companyId, isActive: false } }, accessRoles: roleId },
};
for (const [name, f] of Object.entries(filters)) {
  for (let r = 0; r < 2; r++) {
    const t = performance.now();
    const n = await users.countDocuments(f);
    console.log(name, n, (performance.now() - t).toFixed(0), "ms");
  }
  console.log(JSON.stringify((await users.find(f).explain("executionStats")).executionStats ?? {}, null, 0).slice(0, 300));
}
await client.close(); await db.close();
console.log("dir", dir);
}
void main();
