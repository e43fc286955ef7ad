import { oid } from "@/lib/kernel/ids";
import type { UserRecord } from "@/lib/resources/users/contract";
import { touchLastRequest } from "@/lib/resources/users/repository";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, createTenant, failure, success, type Tenant } from "@/lib/tools/testing/http";
import { beforeAll, describe, expect, it } from "vitest";
import * as user from "./[id]/route";
import * as me from "./me/route";
import * as users from "./route";

describe("ETags and preconditions of users", () => {
  useTestDatabase();
  let t: Tenant;
  let n = 0;

  beforeAll(async () => {
    t = await createTenant("Conditional users");
  });

  async function create(): Promise<{ body: UserRecord; etag: string }> {
    const response = await call(users.POST, "/v2/users", {
      token: t.adminToken,
      admin: true,
      body: { email: `tagged${++n}@acme.io`, accessRoles: [t.memberRoleId], phone: "+34 600 000 000" },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return { body: success(response), etag: response.headers.get("etag")! };
  }

  const read = (id: string, headers: Record<string, string> = {}) =>
    call(user.GET, `/v2/users/${id}`, { token: t.adminToken, params: { id }, headers });
  const patch = (id: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    call(user.PATCH, `/v2/users/${id}`, {
      method: "PATCH",
      token: t.adminToken,
      admin: true,
      body,
      params: { id },
      headers,
    });

  it("tags create, read and PATCH with one ETag per stored version: the same until a write, another after", async () => {
    const { body, etag } = await create();
    expect(etag).toMatch(/^"[\w-]+"$/);
    const first = await read(body._id);
    const again = await read(body._id);
    expect(first.headers.get("etag")).toBe(etag);
    expect(again.headers.get("etag")).toBe(etag);

    const changed = await patch(body._id, { phone: "+34 611 111 111" });
    expect(changed.status).toBe(200);
    const next = changed.headers.get("etag")!;
    expect(next).not.toBe(etag);
    expect((await read(body._id)).headers.get("etag")).toBe(next);
  });

  it("changes the tag when the stored record changes outside a PATCH (lastRequestDate)", async () => {
    const { body, etag } = await create();
    await touchLastRequest(oid(body._id), new Date(), new Date());
    const after = await read(body._id);
    expect(success(after).lastRequestDate).not.toBeNull();
    expect(after.headers.get("etag")).not.toBe(etag);
  });

  it("answers 304 with no body and the tag to If-None-Match naming the current tag, 200 otherwise", async () => {
    const { body, etag } = await create();
    const notModified = await read(body._id, { "if-none-match": etag });
    expect(notModified.status).toBe(304);
    expect(notModified.body).toBeUndefined();
    expect(notModified.headers.get("etag")).toBe(etag);
    expect((await read(body._id, { "if-none-match": `"other", ${etag}` })).status).toBe(304);
    expect((await read(body._id, { "if-none-match": "*" })).status).toBe(304);
    // A weak form of the tag is another tag: compared exactly as sent.
    expect((await read(body._id, { "if-none-match": `W/${etag}` })).status).toBe(200);
    expect((await read(body._id, { "if-none-match": etag.slice(1, -1) })).status).toBe(200);
    await patch(body._id, { phone: "+34 622 222 222" });
    const stale = await read(body._id, { "if-none-match": etag });
    expect(stale.status).toBe(200);
    expect(success(stale).phone).toBe("+34 622 222 222");
  });

  it("tags /v2/users/me and answers its If-None-Match", async () => {
    // The first request of a token records lastRequestDate (once a minute) in the background.
    await call(me.GET, "/v2/users/me", { token: t.memberToken });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const first = await call(me.GET, "/v2/users/me", { token: t.memberToken });
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect((await read(t.memberId)).headers.get("etag")).toBe(etag);
    const cached = await call(me.GET, "/v2/users/me", { token: t.memberToken, headers: { "if-none-match": etag } });
    expect(cached.status).toBe(304);
  });

  it("refuses a PATCH with a stale If-Match: 412 precondition_failed, the current ETag, nothing changed", async () => {
    const { body, etag } = await create();
    const theirs = await patch(body._id, { phone: "+34 633 333 333" });
    const current = theirs.headers.get("etag")!;

    const mine = await patch(
      body._id,
      { phone: "+34 644 444 444", name: { displayName: "X", names: "X", lastName: "Y", secondLastName: "" } },
      { "if-match": etag },
    );
    expect(mine.status).toBe(412);
    expect(failure(mine)).toMatchObject({ status: 412, code: "precondition_failed" });
    expect(mine.headers.get("etag")).toBe(current);
    const stored = await read(body._id);
    expect(success(stored).phone).toBe("+34 633 333 333");
    expect(success(stored).name).toBeNull();
    expect(stored.headers.get("etag")).toBe(current);
  });

  it("applies a PATCH whose If-Match names the current tag, or *, and compares tags exactly as sent", async () => {
    const { body, etag } = await create();
    expect((await patch(body._id, { phone: "+34 655 555 555" }, { "if-match": `W/${etag}` })).status).toBe(412);
    const ok = await patch(body._id, { phone: "+34 655 555 555" }, { "if-match": `"nope", ${etag}` });
    expect(ok.status).toBe(200);
    expect(success(ok).phone).toBe("+34 655 555 555");
    const star = await patch(body._id, { phone: "+34 666 666 666" }, { "if-match": "*" });
    expect(star.status).toBe(200);
    expect(star.headers.get("etag")).not.toBe(ok.headers.get("etag"));
    const unknown = "0123456789abcdef01234567";
    expect((await patch(unknown, { phone: "+34 600" }, { "if-match": "*" })).status).toBe(404);
  });

  it("lets exactly one of concurrent PATCHes sent with the same If-Match through", async () => {
    const { body, etag } = await create();
    const phones = Array.from({ length: 6 }, (_, i) => `+34 69${i} 000 000`);
    const answers = await Promise.all(phones.map((phone) => patch(body._id, { phone }, { "if-match": etag })));
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([200, 412, 412, 412, 412, 412]);
    const winner = answers.find((answer) => answer.status === 200)!;
    const stored = await read(body._id);
    expect(success(stored).phone).toBe(success(winner).phone);
    for (const loser of answers.filter((answer) => answer.status === 412))
      expect(loser.headers.get("etag")).toBe(winner.headers.get("etag"));
  });

  it("keeps PATCH without If-Match as before", async () => {
    const { body } = await create();
    const answer = await patch(body._id, { phone: "+34 677 777 777" });
    expect(answer.status).toBe(200);
  });
});
