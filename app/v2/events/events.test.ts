/**
 * Events over HTTP (docs/api.md#events): one per successful change of each kind of record, none
 * for a no-op or a refused request, all-or-nothing with the change, per company, and a reader
 * following `after` that sees every event exactly once while writers race.
 */
import type { EventRecord } from "@/lib/resources/events/contract";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, createTenant, failure, success, type Tenant } from "@/lib/tools/testing/http";
import { beforeAll, describe, expect, it } from "vitest";
import * as accessRoles from "../access-roles/route";
import * as apiKey from "../api-keys/[id]/route";
import * as apiKeys from "../api-keys/route";
import * as jobTitle from "../job-titles/[id]/route";
import * as jobTitles from "../job-titles/route";
import * as content from "../surveys/[id]/content/route";
import * as survey from "../surveys/[id]/route";
import * as surveys from "../surveys/route";
import * as user from "../users/[id]/route";
import * as users from "../users/route";
import * as events from "./route";

describe("GET /v2/events", () => {
  const db = useTestDatabase({ testCommands: true });
  let a: Tenant;
  let b: Tenant;
  let n = 0;

  beforeAll(async () => {
    [a, b] = await Promise.all([createTenant("Events A"), createTenant("Events B")]);
  });

  const admin = (tenant: Tenant, headers: Record<string, string> = {}) => ({
    token: tenant.adminToken,
    admin: true,
    headers,
  });
  const list = (tenant: Tenant, query = "") => call(events.GET, `/v2/events${query}`, admin(tenant));
  /** Every event of the tenant, walked by `after`. */
  async function all(tenant: Tenant, token = tenant.adminToken) {
    const seen: EventRecord[] = [];
    for (let after: string | undefined; ;) {
      const page = await call(events.GET, `/v2/events?limit=7${after ? `&after=${after}` : ""}`, {
        token,
        admin: true,
      });
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      seen.push(...success(page).data.events);
      if (success(page).data.next === null) return seen;
      expect(page.headers.get("link")).toBe(`</v2/events?limit=7&after=${success(page).data.next}>; rel="next"`);
      after = success(page).data.next!;
    }
  }
  const eventsOf = async (tenant: Tenant, id: string) =>
    (await all(tenant)).filter((event) => event.resource.id === id);

  it("a user's create and PATCH each write one event with the changed paths, the actor and the request id", async () => {
    const created = await call(users.POST, "/v2/users", {
      ...admin(a, { "x-request-id": "create-user-1" }),
      body: {
        email: `ev${++n}@a.test`,
        accessRoles: [a.memberRoleId],
        name: { displayName: "Ana", names: "Ana", lastName: "Pérez", secondLastName: "" },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = success(created)._id;
    const patched = await call(user.PATCH, `/v2/users/${id}`, {
      method: "PATCH",
      ...admin(a, { "x-request-id": "patch-user-1" }),
      body: { name: { names: "Ana María" }, phone: "+34 600 000 000" },
      params: { id },
    });
    expect(patched.status).toBe(200);
    const [createdEvent, updatedEvent, ...more] = await eventsOf(a, id);
    expect(more).toEqual([]);
    expect(createdEvent).toMatchObject({
      type: "user.created",
      resource: { type: "user", id },
      actor: { type: "user", id: a.adminId },
      requestId: "create-user-1",
    });
    expect(createdEvent.changes).toEqual(expect.arrayContaining(["email", "name.displayName", "name.names"]));
    expect(updatedEvent).toMatchObject({
      type: "user.updated",
      actor: { type: "user", id: a.adminId },
      requestId: "patch-user-1",
    });
    expect(updatedEvent.changes.sort()).toEqual(["name.names", "phone"]);
    expect(Object.keys(updatedEvent).sort()).toEqual([
      "_id",
      "actor",
      "changes",
      "createdAt",
      "requestId",
      "resource",
      "type",
    ]);
  });

  it("a PATCH that changes nothing and a refused request write none", async () => {
    const id = a.memberId;
    const before = (await all(a)).length;
    const same = async () =>
      call(user.PATCH, `/v2/users/${id}`, { method: "PATCH", ...admin(a), body: { phone: "+1 555" }, params: { id } });
    expect((await same()).status).toBe(200);
    expect((await same()).status).toBe(200);
    const refused = await call(user.PATCH, `/v2/users/${id}`, {
      method: "PATCH",
      ...admin(a),
      body: { job: "0123456789abcdef01234567" },
      params: { id },
    });
    expect(refused.status).toBe(400);
    const taken = await call(surveys.POST, "/v2/surveys", {
      ...admin(a),
      body: { code: "twice", name: "Twice", version: 2 },
    });
    expect(taken.status).toBe(201);
    expect(
      (await call(surveys.POST, "/v2/surveys", { ...admin(a), body: { code: "twice", name: "Twice", version: 2 } }))
        .status,
    ).toBe(409);
    const after = await all(a);
    // The first PATCH and the survey's create; the repeat, the 400 and the 409 wrote nothing.
    expect(after.slice(before).map((event) => event.type)).toEqual(["user.updated", "survey.created"]);
  });

  it("every survey write (create, PATCH, upgrade, content PUT) writes its event", async () => {
    const created = await call(surveys.POST, "/v2/surveys", {
      ...admin(a),
      body: { code: "ev_survey", name: "Survey", version: 1 },
    });
    const id = success(created)._id;
    const patch = (body: Record<string, unknown>) =>
      call(survey.PATCH, `/v2/surveys/${id}`, { method: "PATCH", ...admin(a), body, params: { id } });
    expect((await patch({ name: "Renamed" })).status).toBe(200);
    expect((await patch({ version: 2 })).status).toBe(200);
    const put = await call(content.PUT, `/v2/surveys/${id}/content`, {
      method: "PUT",
      ...admin(a),
      body: { chat: [{ name: "Intro", questions: [{ text: "Why?", type: "text" }] }] },
      params: { id },
    });
    expect(put.status).toBe(200);
    const seen = await eventsOf(a, id);
    expect(
      seen.map((event) => [
        event.type,
        event.changes.includes("name") || event.changes.includes("version") || event.changes.includes("chat"),
      ]),
    ).toEqual([
      ["survey.created", true],
      ["survey.updated", true],
      ["survey.updated", true],
      ["survey.updated", true],
    ]);
    expect(seen[1].changes).toEqual(["name"]);
  });

  it("reference data and API keys write theirs; an API key acts as itself and needs events:read", async () => {
    const job = await call(jobTitles.POST, "/v2/job-titles", { ...admin(a), body: { name: `Engineer ${++n}` } });
    const renamed = await call(jobTitle.PATCH, `/v2/job-titles/${success(job)._id}`, {
      method: "PATCH",
      ...admin(a),
      body: { name: `Lead ${n}` },
      params: { id: success(job)._id },
    });
    expect(renamed.status).toBe(200);
    const role = await call(accessRoles.POST, "/v2/access-roles", { ...admin(a), body: { name: `Role ${n}` } });
    expect(role.status).toBe(201);
    const key = await call(apiKeys.POST, "/v2/api-keys", {
      ...admin(a),
      body: { name: "Reader", scopes: ["users:write", "users:read"] },
    });
    expect(key.status).toBe(201);
    const reader = await call(apiKeys.POST, "/v2/api-keys", {
      ...admin(a),
      body: { name: "Events", scopes: ["events:read"] },
    });

    const byKey = await call(user.PATCH, `/v2/users/${a.memberId}`, {
      method: "PATCH",
      token: success(key).key,
      admin: true,
      body: { phone: `+2 ${n}` },
      params: { id: a.memberId },
    });
    expect(byKey.status).toBe(200);
    const noScope = await call(events.GET, "/v2/events", { token: success(key).key, admin: true });
    expect(noScope.status).toBe(403);
    expect(failure(noScope).code).toBe("insufficient_scope");
    const revoked = await call(apiKey.DELETE, `/v2/api-keys/${success(key)._id}`, {
      method: "DELETE",
      ...admin(a),
      params: { id: success(key)._id },
    });
    expect(revoked.status).toBe(204);

    const seen = await all(a, success(reader).key);
    const of = (id: string) => seen.filter((event) => event.resource.id === id).map((event) => event.type);
    expect(of(success(job)._id)).toEqual(["jobTitle.created", "jobTitle.updated"]);
    expect(of(success(role)._id)).toEqual(["accessRole.created"]);
    expect(of(success(key)._id)).toEqual(["apiKey.created", "apiKey.deleted"]);
    expect(seen.find((event) => event.resource.id === success(key)._id)!.changes).not.toContain("key");
    expect(seen.filter((event) => event.resource.id === a.memberId).at(-1)).toMatchObject({
      actor: { type: "apiKey", id: success(key)._id },
      changes: ["phone"],
    });
    expect(JSON.stringify(seen)).not.toContain(success(key).key);
  });

  it("a change whose transaction fails leaves neither the change nor its event", async () => {
    const before = (await all(a)).length;
    // The event's insert fails: the user's PATCH in the same transaction is undone with it.
    await db.mongoose.connection.db!.admin().command({
      configureFailPoint: "failCommand",
      mode: { times: 1 },
      data: { failCommands: ["insert"], errorCode: 8 },
    });
    const failed = await call(user.PATCH, `/v2/users/${a.memberId}`, {
      method: "PATCH",
      ...admin(a),
      body: { phone: "+9 lost" },
      params: { id: a.memberId },
    });
    expect(failed.status).toBe(500);
    const read = await call(user.GET, `/v2/users/${a.memberId}`, { ...admin(a), params: { id: a.memberId } });
    expect(success(read).phone).not.toBe("+9 lost");
    expect((await all(a)).length).toBe(before);
  });

  it("filters by type, and keeps each company's events its own", async () => {
    const mine = await all(a);
    const updates = await list(a, "?type=user.updated&type=survey.created&limit=1000");
    expect(success(updates).data.events.map((event) => event._id)).toEqual(
      mine
        .filter((event) => event.type === "user.updated" || event.type === "survey.created")
        .map((event) => event._id),
    );
    const theirs = await all(b);
    expect(theirs.some((event) => mine.some((other) => other._id === event._id))).toBe(false);
    expect(theirs.every((event) => event.resource.id !== a.memberId)).toBe(true);
    const foreign = await list(b, `?after=${mine[0]._id}`);
    expect(foreign.status).toBe(400);
    expect(failure(foreign)).toMatchObject({ code: "invalid_request", details: [{ path: "after" }] });
    expect(failure(foreign).details![0].message).toMatch(/names no event of this company/);
  });

  it("refuses bad input with 400, never 500, and requires Admin", async () => {
    for (const query of [
      "?after=nope",
      "?after=0123456789abcdef01234567",
      "?type=user.exploded",
      "?limit=0",
      "?limit=1001",
      "?limit=ten",
      "?after[$gt]=x",
    ]) {
      const response = await list(a, query);
      expect(response.status, query).toBe(400);
      expect(failure(response).code, query).toBe("invalid_request");
    }
    expect((await call(events.GET, "/v2/events", { token: a.adminToken })).status).toBe(403);
    expect((await call(events.GET, "/v2/events", { token: a.memberToken, admin: true })).status).toBe(403);
  });

  it("a reader following after while 20 writers PATCH users sees every event exactly once", async () => {
    const start = (await all(a)).at(-1)!._id as string;
    const seen: string[] = [];
    let writing = true;
    const read = async () => {
      let after = start;
      const step = async () => {
        const page = await call(events.GET, `/v2/events?after=${after}&limit=5`, admin(a));
        expect(page.status).toBe(200);
        for (const event of success(page).data.events) seen.push(event._id);
        if (success(page).data.events.length > 0) after = success(page).data.events.at(-1)!._id;
      };
      while (writing) await step();
      // What committed after the last read while writing: read on until nothing is left.
      for (let before = -1; before !== seen.length;) {
        before = seen.length;
        await step();
      }
    };
    const writers = Array.from({ length: 20 }, (_, w) =>
      (async () => {
        for (let k = 0; k < 3; k++) {
          const response = await call(user.PATCH, `/v2/users/${a.memberId}`, {
            method: "PATCH",
            ...admin(a),
            body: { extensions: { writer: w, k } },
            params: { id: a.memberId },
          });
          expect(response.status).toBe(200);
        }
      })(),
    );
    const reader = read();
    await Promise.all(writers);
    writing = false;
    await reader;
    const everything = (await all(a)).map((event) => event._id);
    const expected = everything.slice(everything.indexOf(start) + 1);
    expect(expected.length).toBeGreaterThanOrEqual(1);
    expect(seen).toEqual(expected);
  });
});
