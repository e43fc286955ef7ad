import { oid } from "@/lib/kernel/ids";
import { Event } from "@/lib/resources/events/repository";
import { insertJob, Job, type JobDoc, JobFileChunk, newJobDoc } from "@/lib/resources/jobs/repository";
import { JobRunner } from "@/lib/resources/jobs/runner";
import { MAX_HELD_IMPORT_BYTES, MAX_IMPORT_BYTES } from "@/lib/resources/jobs/service";
import { createReference } from "@/lib/resources/spanning/reference";
import { importBatch, importScope, prepareBatch } from "@/lib/resources/users/import";
import { CSV_TYPE, type ImportRow, importRows, MAX_RECORD_BYTES } from "@/lib/resources/users/import-file";
import { User } from "@/lib/resources/users/repository";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, createTenant, failure, success, type Tenant } from "@/lib/tools/testing/http";
import { beforeAll, describe, expect, it } from "vitest";
import * as jobRoute from "../../jobs/[id]/route";
import * as exportRoute from "../export/route";
import * as usersRoute from "../route";
import * as importRoute from "./route";

describe("import of users", () => {
  useTestDatabase();
  let a: Tenant;
  let b: Tenant;
  const auth = (tenant: Tenant) => ({
    userId: tenant.adminId,
    companyId: tenant.companyId,
    sessionId: "",
    accessRoles: [],
  });

  beforeAll(async () => {
    a = await createTenant("Import A");
    b = await createTenant("Import B");
    await createReference(auth(a), "jobTitles", { name: "Engineer" });
    await createReference(auth(a), "jobTitles", { name: "Designer" });
  });

  const post = (
    tenant: Tenant,
    body: string,
    options: { type?: string; dryRun?: boolean; admin?: boolean; token?: string } = {},
  ) =>
    call(importRoute.POST, `/v2/users/import${options.dryRun ? "?dryRun=true" : ""}`, {
      method: "POST",
      token: options.token ?? tenant.adminToken,
      admin: options.admin ?? true,
      rawBody: body,
      headers: { "content-type": options.type ?? "text/csv" },
    });
  const job = (tenant: Tenant, id: string) =>
    call(jobRoute.GET, `/v2/jobs/${id}`, { token: tenant.adminToken, admin: true, params: { id } });
  /** Runs every queued job to its end, in batches of 3 rows so a file spans several transactions. */
  const runJobs = () => new JobRunner({ batchSize: 3 }).runOnce();
  const importFile = async (tenant: Tenant, body: string, options: { type?: string; dryRun?: boolean } = {}) => {
    const started = await post(tenant, body, options);
    expect(started.status).toBe(202);
    await runJobs();
    const done = await job(tenant, success(started)._id);
    expect(done.status).toBe(200);
    return success(done);
  };
  const usersOf = async (tenant: Tenant, emails: string[]) =>
    success(
      await call(
        usersRoute.GET,
        `/v2/users?isActive=all&limit=100&${emails.map((email) => `email=${encodeURIComponent(email)}`).join("&")}`,
        { token: tenant.adminToken },
      ),
    ).data.users;

  const CSV = [
    "_id,email,firstName,lastName,secondLastName,isActive,accessRoles,jobTitle,createdAt,phone",
    "ffffffffffffffffffffffff,ana@import.test,Ana,Pérez,,true,Member,Engineer,2020-01-01T00:00:00.000Z,+34 600",
    ",bea@import.test,Bea,Ruiz,Soto,false,Member;Admin,,,",
    ",not-an-email,Carl,Bad,,true,Member,,,",
    ",dan@import.test,Dan,Lee,,maybe,Nobody,Astronaut,,",
    ",eve@import.test,Eve,Moss,,true,Member,designer,,",
  ].join("\n");

  it("answers 202 with the job and Location, and a dry run reports every row and changes nothing", async () => {
    const eventsBefore = await Event.countDocuments({});
    const started = await post(a, CSV, { dryRun: true });
    expect(started.status).toBe(202);
    expect(started.headers.get("location")).toBe(`/v2/jobs/${success(started)._id}`);
    expect(started.body).toMatchObject({
      type: "users.import",
      status: "queued",
      dryRun: true,
      progress: { done: 0 },
      finishedAt: null,
    });
    await runJobs();
    const done = success(await job(a, success(started)._id));
    expect(done).toMatchObject({
      status: "succeeded",
      dryRun: true,
      progress: { done: 5, total: 5 },
      summary: { created: 3, updated: 0, unchanged: 0, failed: 2 },
      message: null,
    });
    expect(done.finishedAt).toEqual(expect.any(String));
    expect(done.errors).toEqual([
      { line: 4, path: "email", message: "must be an e-mail address" },
      { line: 5, path: "accessRoles", message: "names no access role of the company: Nobody" },
      { line: 5, path: "jobTitle", message: "names no job title of the company: Astronaut" },
      { line: 5, path: "isActive", message: 'must be true or false, not "maybe"' },
    ]);
    expect(await usersOf(a, ["ana@import.test", "bea@import.test", "eve@import.test"])).toEqual([]);
    expect(await Event.countDocuments({})).toBe(eventsBefore);
    // The file is not kept after the job.
    expect(await JobFileChunk.countDocuments({ job: oid(success(started)._id) })).toBe(0);
  });

  it("creates the good rows with their events, reports the bad ones by line, and a second import changes nothing", async () => {
    const first = await importFile(a, CSV);
    expect(first).toMatchObject({
      status: "succeeded",
      dryRun: false,
      progress: { done: 5, total: 5 },
      summary: { created: 3, updated: 0, unchanged: 0, failed: 2 },
    });
    expect(first.errors.map((error) => error.line)).toEqual([4, 5, 5, 5]);
    const [ana] = await usersOf(a, ["ana@import.test"]);
    expect(ana).toMatchObject({
      name: { displayName: "Ana Pérez", names: "Ana", lastName: "Pérez", secondLastName: "" },
      accessRoles: [a.memberRoleId],
      phone: "+34 600",
      isActive: true,
    });
    expect(ana._id).not.toBe("ffffffffffffffffffffffff");
    const [bea] = await usersOf(a, ["bea@import.test"]);
    expect(bea).toMatchObject({ isActive: false, job: null });
    expect(new Set(bea.accessRoles)).toEqual(new Set([a.memberRoleId, a.adminRoleId]));
    const [eve] = await usersOf(a, ["eve@import.test"]);
    expect(eve.job).not.toBeNull();
    const created = await Event.find({
      type: "user.created",
      "resource.id": { $in: [ana._id, bea._id, eve._id] },
    }).lean();
    expect(created).toHaveLength(3);
    expect(created.every((event) => event.actor?.id === a.adminId)).toBe(true);

    const eventsBefore = await Event.countDocuments({});
    const again = await importFile(a, CSV);
    expect(again.summary).toEqual({ created: 0, updated: 0, unchanged: 3, failed: 2 });
    expect(await Event.countDocuments({})).toBe(eventsBefore);
  });

  it("imports its own export back, CSV and NDJSON, as all unchanged: formula-guarded cells restored, references named by id", async () => {
    const emails = ["round.one@import.test", "round.two@import.test"];
    await importFile(
      a,
      [
        "email,firstName,lastName,isActive,accessRoles,jobTitle,phone",
        `${emails[0]},Rhea,"Trip, Round",true,Member,Engineer,+34 600 000 001`,
        `${emails[1]},=Sum,@Home,false,Member,,-5`,
      ].join("\n"),
    );
    const query = emails.map((email) => `email=${encodeURIComponent(email)}`).join("&");
    for (const format of ["csv", "ndjson"] as const) {
      const request = new Request(`http://localhost/v2/users/export?format=${format}&isActive=all&${query}`, {
        headers: { authorization: `Bearer ${a.adminToken}`, admin: "true" },
      });
      const exported = await exportRoute.GET(request, { params: Promise.resolve({}) });
      expect(exported.status).toBe(200);
      const file = await exported.text();
      expect(file.split("\n").filter(Boolean)).toHaveLength(format === "csv" ? 3 : 2);
      const again = await importFile(a, file, { type: format === "csv" ? "text/csv" : "application/x-ndjson" });
      expect(again.errors, format).toEqual([]);
      expect(again.summary, format).toEqual({ created: 0, updated: 0, unchanged: 2, failed: 0 });
    }
    const [one, two] = await usersOf(a, emails);
    expect([one, two].map((user) => user.phone).sort()).toEqual(["+34 600 000 001", "-5"]);
  });

  it("updates only the fields that differ, with one event naming them", async () => {
    const [before] = await usersOf(a, ["ana@import.test"]);
    const done = await importFile(a, "email,lastName,firstName,isActive\nANA@import.test,Pérez,Anna,false\n");
    expect(done.summary).toEqual({ created: 0, updated: 1, unchanged: 0, failed: 0 });
    const [after] = await usersOf(a, ["ana@import.test"]);
    // The stored display name is kept when the file has none.
    expect(after).toMatchObject({
      name: { displayName: "Ana Pérez", names: "Anna", lastName: "Pérez" },
      isActive: false,
      phone: "+34 600",
      accessRoles: before.accessRoles,
    });
    expect(after.search).toContain("anna");
    const [event] = await Event.find({ type: "user.updated", "resource.id": after._id }).lean();
    expect(event.changes.sort()).toEqual(["isActive", "name.names"]);
  });

  it("takes NDJSON in the user record's shape, names for ids", async () => {
    const lines = [
      JSON.stringify({
        _id: "ffffffffffffffffffffffff",
        email: "nd@import.test",
        name: { displayName: "N D", names: "N", lastName: "D", secondLastName: "" },
        accessRoles: ["Member"],
        job: "Designer",
        isActive: true,
        createdAt: "x",
      }),
      "",
      "{not json",
      JSON.stringify({ email: "nd2@import.test", accessRoles: ["Member"], name: { names: "Only" } }),
      JSON.stringify([1]),
    ].join("\n");
    const done = await importFile(a, lines, { type: "application/x-ndjson" });
    expect(done.summary).toEqual({ created: 1, updated: 0, unchanged: 0, failed: 3 });
    expect(done.errors.map((error) => [error.line, error.path])).toEqual([
      [3, ""],
      [4, "name.lastName"],
      [5, ""],
    ]);
    const [nd] = await usersOf(a, ["nd@import.test"]);
    expect(nd).toMatchObject({ name: { displayName: "N D" }, accessRoles: [a.memberRoleId] });
  });

  it("reports a second row of one e-mail, a new user without access roles, and a row of the wrong length", async () => {
    const done = await importFile(
      a,
      "email,firstName,lastName,accessRoles\nzed@import.test,Z,Z,Member\nZED@import.test,Y,Y,Member\nnorole@import.test,N,R,\nshort@import.test,S\n",
    );
    expect(done.summary).toEqual({ created: 1, updated: 0, unchanged: 0, failed: 3 });
    expect(done.errors).toEqual([
      { line: 3, path: "email", message: "appears earlier in the file (line 2); each user may have one row" },
      { line: 4, path: "accessRoles", message: "must name at least one access role" },
      { line: 5, path: "", message: "cannot be read: it has 2 cells where the header names 4 columns" },
    ]);
  });

  it("takes isActive as true or false only (any case), as the export writes it: yes, 1 or no are row errors naming the column, nothing guessed", async () => {
    const done = await importFile(
      a,
      "email,accessRoles,isActive\nyes@import.test,Member,yes\none@import.test,Member,1\nno@import.test,Member,No\nproto@import.test,Member,constructor\nok@import.test,Member,FALSE\n",
    );
    expect(done.summary).toEqual({ created: 1, updated: 0, unchanged: 0, failed: 4 });
    expect(done.errors).toEqual([
      { line: 2, path: "isActive", message: 'must be true or false, not "yes"' },
      { line: 3, path: "isActive", message: 'must be true or false, not "1"' },
      { line: 4, path: "isActive", message: 'must be true or false, not "No"' },
      { line: 5, path: "isActive", message: 'must be true or false, not "constructor"' },
    ]);
    const [ok] = await usersOf(a, ["ok@import.test"]);
    expect(ok).toMatchObject({ isActive: false });
    expect(await usersOf(a, ["yes@import.test", "one@import.test"])).toEqual([]);
  });

  it("ignores header cells that name inherited members (constructor, __proto__, toString) as it ignores any unknown column", async () => {
    const done = await importFile(
      a,
      "email,constructor,__proto__,toString,accessRoles\nheader@import.test,x,y,z,Member\n",
    );
    expect(done).toMatchObject({ status: "succeeded", summary: { created: 1, failed: 0 } });
    expect(await usersOf(a, ["header@import.test"])).toHaveLength(1);
  });

  it("keeps a row error short however long the cell it quotes", async () => {
    const done = await importFile(a, `email,accessRoles\nlong@import.test,${"x".repeat(20_000)}\n`);
    expect(done.summary).toMatchObject({ failed: 1 });
    expect(done.errors[0].path).toBe("accessRoles");
    expect(done.errors[0].message.length).toBe(500);
    expect(done.errors[0].message).toMatch(/^names no access role of the company: x+…$/);
  });

  it("reports a row larger than 64 KiB (a 5 MB cell, CSV and NDJSON) by its line, in a dry run too, and keeps the other rows' errors", async () => {
    const huge = "x".repeat(5 * 1000 * 1000);
    const tooLarge = `cannot be read: the record is larger than ${MAX_RECORD_BYTES} bytes, the most a row may hold`;
    const csv = [
      "email,firstName,lastName,accessRoles",
      "before@import.test,B,B,Nobody",
      `big@import.test,"${huge}",X,Member`,
      "after@import.test,A,A,Nobody",
      "fine@import.test,F,F,Member",
    ].join("\n");
    const done = await importFile(a, csv, { dryRun: true });
    expect(done).toMatchObject({ status: "succeeded", dryRun: true, progress: { done: 4, total: 4 } });
    expect(done.summary).toEqual({ created: 1, updated: 0, unchanged: 0, failed: 3 });
    expect(done.errors).toEqual([
      { line: 2, path: "accessRoles", message: expect.stringContaining("Nobody") },
      { line: 3, path: "", message: tooLarge },
      { line: 4, path: "accessRoles", message: expect.stringContaining("Nobody") },
    ]);
    const ndjson = [
      JSON.stringify({ email: "nd-before@import.test", accessRoles: ["Nobody"], name: { names: "B", lastName: "B" } }),
      JSON.stringify({ email: "nd-big@import.test", accessRoles: ["Member"], name: { names: huge, lastName: "X" } }),
      JSON.stringify({
        email: "nd-fine@import.test",
        accessRoles: ["Member"],
        name: { names: "F", lastName: "F", secondLastName: "" },
      }),
    ].join("\n");
    const nd = await importFile(a, ndjson, { type: "application/x-ndjson", dryRun: true });
    expect(nd.summary).toEqual({ created: 1, updated: 0, unchanged: 0, failed: 2 });
    expect(nd.errors.map((error) => [error.line, error.message])).toEqual([
      [1, expect.stringContaining("Nobody")],
      [2, tooLarge],
    ]);
    expect(await User.countDocuments({ email: /^(nd-)?(big|fine|before|after)@import\.test$/ })).toBe(0);
  });

  it("refuses an upload that would take the company's unfinished imports past the cap (409), counting live uploads and not lapsed ones, and keeps nothing of it", async () => {
    const jobsBefore = await Job.countDocuments({});
    /** A job of company a holding `bytes` of file, as the upload or the runner leaves it (no chunks: no runner takes it while it exists). */
    const held = async (bytes: number, status: JobDoc["status"], leaseUntil: Date | null = null) => {
      const doc = newJobDoc(
        {
          company: oid(a.companyId),
          type: "users.import",
          dryRun: true,
          file: { mediaType: CSV_TYPE, bytes, chunks: 0 },
          actor: { userId: a.adminId, apiKeyId: null, scopes: [], requestId: null, ip: null, userAgent: null },
        },
        new Date(),
      );
      await insertJob({ ...doc, status, leaseUntil });
      return doc._id;
    };
    const file = "email\nq1@import.test\n"; // 21 bytes
    const fakes = [
      await held(MAX_HELD_IMPORT_BYTES - 30, "queued"),
      // An upload whose process stopped a minute ago no longer counts.
      await held(MAX_IMPORT_BYTES, "uploading", new Date(Date.now() - 60_000)),
    ];
    const refused = await post(a, file + "q2@import.test\n");
    expect(refused.status).toBe(409);
    expect(failure(refused).code).toBe("conflict");
    expect(failure(refused).message).toMatch(
      /already hold 200 MiB of files; with this one \(1 MiB so far\) they would pass 200 MiB.*Wait for them to finish/,
    );
    // A declared length is checked before the body is read.
    const declared = await call(importRoute.POST, "/v2/users/import", {
      method: "POST",
      token: a.adminToken,
      admin: true,
      rawBody: file,
      headers: { "content-type": "text/csv", "content-length": "1000" },
    });
    expect(declared.status).toBe(409);
    expect(await Job.countDocuments({})).toBe(jobsBefore + 2);
    expect(await JobFileChunk.countDocuments({})).toBe(0);
    // What fits under the cap is taken.
    const taken = await post(a, file, { dryRun: true });
    expect(taken.status).toBe(202);
    // A live upload counts: with one arriving, even the small file is refused; another company is not held back.
    fakes.push(await held(30, "uploading", new Date(Date.now() + 60_000)));
    expect((await post(a, "email\nq3@import.test\n", { dryRun: true })).status).toBe(409);
    expect((await post(b, "email\nq3@import.test\n", { dryRun: true })).status).toBe(202);
    // An upload arriving is not a job yet: it is no one's to read.
    expect((await job(a, fakes[2].toHexString())).status).toBe(404);
    await Job.deleteMany({ _id: { $in: fakes } });
    await runJobs();
    expect(success(await job(a, success(taken)._id)).status).toBe("succeeded");
  });

  it("refuses a change that would leave the company without an active admin", async () => {
    const [admin] = await usersOf(a, [`admin@${(await User.findById(a.adminId).lean())!.email.split("@")[1]}`]);
    const bea = (await usersOf(a, ["bea@import.test"]))[0];
    expect(bea.isActive).toBe(false);
    // Bea holds Admin but is inactive: the company's only active admin is its first admin.
    const done = await importFile(a, `email,accessRoles\n${admin.email},Member\n`);
    expect(done.summary).toMatchObject({ updated: 0, failed: 1 });
    expect(done.errors).toEqual([
      { line: 2, path: "accessRoles", message: "would leave the company without an active admin" },
    ]);
    // With Bea made active first, the demotion of the first admin is allowed.
    const both = await importFile(
      a,
      `email,isActive,accessRoles\nbea@import.test,true,Member;Admin\n${admin.email},true,Admin\n`,
    );
    expect(both.summary).toMatchObject({ updated: 1, unchanged: 1, failed: 0 });
  });

  it("never touches another company's user with the same e-mail, and a job is 404 to another company", async () => {
    const [member] = success(await call(usersRoute.GET, `/v2/users?id=${b.memberId}`, { token: b.adminToken })).data
      .users;
    const done = await importFile(a, `email,firstName,lastName,accessRoles\n${member.email},Changed,Name,Member\n`);
    expect(done.summary).toMatchObject({ created: 0, updated: 0, failed: 1 });
    expect(done.errors).toEqual([{ line: 2, path: "email", message: "A user with this e-mail already exists." }]);
    const stored = await User.findById(member._id).lean();
    expect(stored!.name).toEqual(member.name);
    expect(stored!.companies).toHaveLength(1);

    const started = await post(a, "email\nx@import.test\n", { dryRun: true });
    expect((await job(b, success(started)._id)).status).toBe(404);
    expect((await job(a, success(started)._id)).status).toBe(200);
    expect((await job(a, "ffffffffffffffffffffffff")).status).toBe(404);
    expect((await job(a, "nope")).status).toBe(400);
    await runJobs();
  });

  it("checks a batch again in its transaction when its users changed after it was read: a user created meanwhile is updated, not duplicated", async () => {
    const scope = await importScope(oid(a.companyId), auth(a), true);
    const rows: ImportRow[] = [];
    for await (const row of importRows(
      CSV_TYPE,
      (async function* () {
        yield Buffer.from("email,firstName,lastName,accessRoles,phone\nlate@import.test,Late,Comer,Member,+34 611\n");
      })(),
    ))
      rows.push(row);
    const prepared = await prepareBatch(scope, rows, false);
    // Between the batch's check and its transaction, someone creates the same user through the API.
    const made = await call(usersRoute.POST, "/v2/users", {
      method: "POST",
      token: a.adminToken,
      admin: true,
      body: {
        email: "late@import.test",
        accessRoles: [a.memberRoleId],
        name: { displayName: "L C", names: "L", lastName: "C", secondLastName: "" },
      },
    });
    expect(made.status).toBe(201);
    const madeId = success(made)._id;
    const outcome = await importBatch(scope, prepared, false, async () => true);
    expect(outcome).toEqual({ summary: { created: 0, updated: 1, unchanged: 0, failed: 0 }, errors: [] });
    const [late] = await usersOf(a, ["late@import.test"]);
    expect(late).toMatchObject({ _id: madeId, name: { names: "Late", lastName: "Comer" }, phone: "+34 611" });
    expect(await User.countDocuments({ email: "late@import.test" })).toBe(1);
  });

  it("requires Admin: true from an admin, for the import and the job", async () => {
    expect((await post(a, "email\n", { admin: false })).status).toBe(403);
    expect((await post(a, "email\n", { token: a.memberToken })).status).toBe(403);
    const started = await post(a, "email\nq@import.test\n", { dryRun: true });
    expect(
      (
        await call(jobRoute.GET, `/v2/jobs/${success(started)._id}`, {
          token: a.adminToken,
          params: { id: success(started)._id },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await call(jobRoute.GET, `/v2/jobs/${success(started)._id}`, {
          token: a.memberToken,
          admin: true,
          params: { id: success(started)._id },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await call(importRoute.POST, "/v2/users/import", {
          method: "POST",
          rawBody: "email\n",
          headers: { "content-type": "text/csv" },
        })
      ).status,
    ).toBe(401);
    await runJobs();
  });

  // Streams 100 MiB into the database before it refuses: tens of seconds on a busy machine.
  it(
    "refuses other media types (415), an empty body (400), a file over 100 MiB (413), and a file without an email column fails the job",
    { timeout: 120_000 },
    async () => {
      const jobsBefore = await Job.countDocuments({});
      expect(failure(await post(a, "{}", { type: "application/json" })).code).toBe("unsupported_media_type");
      expect((await post(a, "email\n", { type: "text/plain" })).status).toBe(415);
      const empty = await post(a, "");
      expect(empty.status).toBe(400);
      expect(failure(empty).details).toEqual([{ path: "body", message: "is empty: send the file as the body" }]);
      const declared = await call(importRoute.POST, "/v2/users/import", {
        method: "POST",
        token: a.adminToken,
        admin: true,
        rawBody: "email\n",
        headers: { "content-type": "text/csv", "content-length": String(MAX_IMPORT_BYTES + 1) },
      });
      expect(declared.status).toBe(413);
      // Streamed past the limit without a length: refused once the bytes go over, nothing kept.
      const chunk = new Uint8Array(8 * 1024 * 1024).fill(0x61);
      let sent = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent > MAX_IMPORT_BYTES) controller.close();
          else {
            sent += chunk.byteLength;
            controller.enqueue(chunk);
          }
        },
      });
      const request = new Request("http://localhost/v2/users/import", {
        method: "POST",
        body: stream,
        headers: { authorization: `Bearer ${a.adminToken}`, admin: "true", "content-type": "text/csv" },
        duplex: "half",
      } as RequestInit);
      const streamed = await importRoute.POST(request, { params: Promise.resolve({}) });
      expect(streamed.status).toBe(413);
      expect(await Job.countDocuments({})).toBe(jobsBefore);
      expect(await JobFileChunk.countDocuments({})).toBe(0);

      const noEmail = await importFile(a, "name,role\nx,y\n");
      expect(noEmail).toMatchObject({ status: "failed", message: expect.stringContaining("no email column") });
    },
  );
});
