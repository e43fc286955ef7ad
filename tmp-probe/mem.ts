import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { startEmbeddedMongo } from "@/lib/embedded-mongo";

async function main() {
  const dir = await mkdtemp(path.join(tmpdir(), "mem-"));
  const server = await startEmbeddedMongo({ dir });
  process.env.MONGODB_URI = server.localUri;
  process.env.LOG_LEVEL = "silent";
  const { connect } = await import("@/lib/db");
  await connect();
  const { createTenant } = await import("@/lib/testing/http");
  const { emptyMembership, newDoc, User } = await import("@/lib/users/repository");
  const { oid } = await import("@/lib/server/ids");
  const exported = await import("@/app/v2/users/export/route");
  const t = await createTenant("M");
  const companyId = oid(t.companyId);
  const N = Number(process.argv[2] ?? 100000);
  const now = Date.now();
  for (let s = 0; s < N; s += 5000) {
    await User.collection.insertMany(Array.from({ length: 5000 }, (_, k) => { const i = s + k; return newDoc({ email: `u${i}@x.y`, name: { displayName: "A B", names: "A", lastName: "B", secondLastName: "" }, accessRoles: [oid(t.memberRoleId)], companies: [emptyMembership(companyId)], createdAt: new Date(now - (N - i) * 100), modifiedAt: new Date(now - Math.floor((N - i) / 10) * 1000) }); }));
  }
  const mb = (n: number) => (n / 1048576).toFixed(0);
  const show = (label: string) => { const m = process.memoryUsage(); console.log(label, "rss", mb(m.rss), "heapUsed", mb(m.heapUsed), "heapTotal", mb(m.heapTotal), "external", mb(m.external), "arrayBuffers", mb(m.arrayBuffers)); };
  global.gc!(); show("before");
  const response = await exported.GET(new Request(`http://localhost/v2/users/export?isActive=all`, { headers: { authorization: `Bearer ${t.adminToken}`, admin: "true" } }), { params: Promise.resolve({}) });
  const reader = response.body!.getReader();
  let chunks = 0;
  for (;;) { const { done } = await reader.read(); if (done) break; if (++chunks % 20 === 0) show(`chunk ${chunks}`); }
  show("end"); global.gc!(); show("after gc");
  process.exit(0);
}
main();
