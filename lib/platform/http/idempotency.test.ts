import * as jobTitles from "@/app/v2/job-titles/route";
import * as users from "@/app/v2/users/route";
import { IdempotencyRecord } from "@/lib/resources/requests/repository";
import { User } from "@/lib/resources/users/repository";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, createTenant, failure, success, type Tenant } from "@/lib/tools/testing/http";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { created } from "./reply";
import { route } from "./route";

describe("Idempotency-Key on POST", () => {
  const db = useTestDatabase();
  let t: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    t = await createTenant("Idempotent");
    other = await createTenant("Other caller");
  });

  const createUser = (email: string, key?: string, token = t.adminToken) =>
    call(users.POST, "/v2/users", {
      token,
      admin: true,
      body: { email, accessRoles: [token === t.adminToken ? t.memberRoleId : other.memberRoleId] },
      headers: key === undefined ? {} : { "Idempotency-Key": key },
    });
  const usersWith = (email: string) => User.countDocuments({ email });

  it("replays the first answer (status, body, Location) with Idempotent-Replayed: true, and does nothing more", async () => {
    const first = await createUser("once@idem.io", "key-1");
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const again = await createUser("once@idem.io", "key-1");
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("location")).toBe(first.headers.get("location"));
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("x-request-id")).not.toBe(first.headers.get("x-request-id"));
    expect(await usersWith("once@idem.io")).toBe(1);
  });

  it("answers 422 idempotency_key_reused for the same key with another body, doing nothing", async () => {
    expect((await createUser("first@idem.io", "key-2")).status).toBe(201);
    const reused = await createUser("second@idem.io", "key-2");
    expect(reused.status).toBe(422);
    expect(failure(reused).code).toBe("idempotency_key_reused");
    expect(failure(reused).details).toEqual([{ path: "Idempotency-Key", message: "was used with another request" }]);
    expect(await usersWith("second@idem.io")).toBe(0);
  });

  it("keeps the keys of each caller apart", async () => {
    expect((await createUser("mine@idem.io", "shared-key")).status).toBe(201);
    const theirs = await createUser("theirs@idem.io", "shared-key", other.adminToken);
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get("idempotent-replayed")).toBeNull();
  });

  it("answers 400 naming the header for an empty key or one over 255 characters, and does nothing", async () => {
    for (const key of ["", "k".repeat(256)]) {
      const refused = await createUser("never@idem.io", key);
      expect(refused.status).toBe(400);
      expect(failure(refused).code).toBe("invalid_request");
      expect(failure(refused).details).toEqual([{ path: "Idempotency-Key", message: "must be 1 to 255 characters" }]);
    }
    expect(await usersWith("never@idem.io")).toBe(0);
    expect(await IdempotencyRecord.countDocuments({ key: "" })).toBe(0);
    expect((await createUser("long@idem.io", "k".repeat(255))).status).toBe(201);
  });

  it("does not keep an error answer: the key may be sent again", async () => {
    expect((await createUser("taken@idem.io")).status).toBe(201);
    const conflict = await createUser("taken@idem.io", "key-3");
    expect(conflict.status).toBe(409);
    expect(failure(conflict).code).toBe("conflict");
    expect((await createUser("free@idem.io", "key-3")).status).toBe(201);
  });

  it("answers 409 request_in_progress while the first request with the key runs", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const started = new Promise<void>((resolve) => (entered = resolve));
    let runs = 0;
    const slow = route({ body: z.object({ n: z.number() }), scope: "users:write" }, async ({ body }) => {
      runs += 1;
      entered();
      await gate;
      return created({ n: body.n }, "/v2/slow/1");
    });
    const send = () =>
      call(slow, "/v2/slow", { token: t.adminToken, body: { n: 1 }, headers: { "Idempotency-Key": "slow" } });
    const first = send();
    await started;
    const during = await send();
    expect(during.status).toBe(409);
    expect(failure(during).code).toBe("request_in_progress");
    release();
    expect((await first).status).toBe(201);
    const after = await send();
    expect(after.status).toBe(201);
    expect(after.headers.get("idempotent-replayed")).toBe("true");
    expect(runs).toBe(1);
  });

  it("runs one of two concurrent requests with one key; the other is 409 or its replay", async () => {
    const answers = await Promise.all([createUser("race@idem.io", "race"), createUser("race@idem.io", "race")]);
    expect(await usersWith("race@idem.io")).toBe(1);
    const fresh = answers.filter(
      (answer) => answer.status === 201 && answer.headers.get("idempotent-replayed") === null,
    );
    expect(fresh).toHaveLength(1);
    const second = answers.find((answer) => answer !== fresh[0])!;
    if (second.status === 201) expect(second.body).toEqual(fresh[0].body);
    else expect(failure(second).code).toBe("request_in_progress");
  });

  it("forgets a key after 24 hours (TTL index, and checked on use while the index has not removed it yet)", async () => {
    const indexes = await db.mongoose.connection.db!.collection("idempotencyKeys").indexes();
    expect(indexes).toContainEqual(expect.objectContaining({ key: { createdAt: 1 }, expireAfterSeconds: 86_400 }));
    expect(indexes).toContainEqual(expect.objectContaining({ key: { caller: 1, key: 1 }, unique: true }));

    const post = (name: string) =>
      call(jobTitles.POST, "/v2/job-titles", {
        token: t.adminToken,
        admin: true,
        body: { name },
        headers: { "Idempotency-Key": "daily" },
      });
    expect((await post("Baker")).status).toBe(201);
    // A day and a second later (moved back in the store: the access token would not outlive a day).
    const dayAgo = new Date(Date.now() - 24 * 60 * 60 * 1000 - 1000);
    await IdempotencyRecord.updateOne({ key: "daily" }, { $set: { createdAt: dayAgo, startedAt: dayAgo } });
    const next = await post("Butcher");
    expect(next.status).toBe(201);
    expect(success(next).name).toBe("Butcher");
  });

  it("takes over a key left running by a process that died", async () => {
    const long = new Date(Date.now() - 10 * 60 * 1000);
    await IdempotencyRecord.create({
      caller: `user:${t.adminId}:${t.companyId}`,
      key: "orphan",
      fingerprint: "x",
      createdAt: long,
      startedAt: long,
      done: false,
    });
    const answer = await createUser("orphan@idem.io", "orphan");
    expect(answer.status).toBe(201);
    expect(await usersWith("orphan@idem.io")).toBe(1);
  });
});
