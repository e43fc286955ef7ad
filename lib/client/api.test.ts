import * as apiKeys from "@/lib/resources/api-keys/contract";
import * as users from "@/lib/resources/users/contract";
import { useBrowserClient } from "@/lib/tools/testing/browser";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { createTenant, type Tenant } from "@/lib/tools/testing/http";
import { beforeAll, describe, expect, it } from "vitest";
import { ApiError, request, requestWithTag } from "./api";

describe("request(): a contract's operation sent by the browser client to its real handler", () => {
  useTestDatabase();
  let t: Tenant;
  beforeAll(async () => {
    t = await createTenant("Browser client");
  });
  const { sent } = useBrowserClient(() => t.adminToken);
  const last = () => sent[sent.length - 1];
  const failureOf = (promise: Promise<unknown>) =>
    promise.then(
      () => expect.unreachable("the request succeeded"),
      (error: unknown) => error as ApiError,
    );

  it("takes the method and path from the operation, with the token and Admin header, and answers its response type", async () => {
    const created = await request(users.create, {
      body: { email: "Ana.Client@Acme.io", accessRoles: [t.memberRoleId] },
    });
    expect(last()).toMatchObject({ method: "POST", url: "/v2/users" });
    expect(last().headers.get("authorization")).toBe(`Bearer ${t.adminToken}`);
    expect(last().headers.get("admin")).toBe("true");
    expect(created.email).toBe("ana.client@acme.io");

    const read = await request(users.read, { params: { id: created._id } });
    expect(last()).toMatchObject({ method: "GET", url: `/v2/users/${created._id}` });
    expect(read._id).toBe(created._id);
  });

  it("encodes each path parameter as one segment", async () => {
    const error = await failureOf(request(users.read, { params: { id: "a/b c?d" } }));
    expect(last().url).toBe("/v2/users/a%2Fb%20c%3Fd");
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, code: "invalid_id" });
    await expect(request(users.read, { params: { id: "" } })).rejects.toThrow("the path parameter id is missing");
  });

  it("serialises the query as the API reads it: arrays repeated, empty values left out", async () => {
    const a = await request(users.create, { body: { email: "one@client.test", accessRoles: [t.memberRoleId] } });
    const b = await request(users.create, {
      body: { email: "two@client.test", accessRoles: [t.memberRoleId], isActive: false },
    });
    const list = await request(users.list, {
      query: { id: [a._id, b._id], isActive: "all", search: "", limit: 10, count: true, cursor: undefined },
    });
    expect(last().url).toBe(`/v2/users?id=${a._id}&id=${b._id}&isActive=all&limit=10&count=true`);
    expect(list.data.users.map((user) => user.email).sort()).toEqual(["one@client.test", "two@client.test"]);
    expect(list.data.counter).toBe(2);
  });

  it("types the body by the operation's schema, and surfaces the error envelope of a body the server refuses", async () => {
    // @ts-expect-error an operation that takes a body requires it
    await expect(request(users.create, {})).rejects.toBeInstanceOf(ApiError);
    // @ts-expect-error accessRoles is a list of ids
    const error = await failureOf(request(users.create, { body: { email: "not an address", accessRoles: "nope" } }));
    expect(error).toMatchObject({ status: 400, code: "invalid_request" });
    expect(error.details.map((detail) => detail.path).sort()).toEqual(["accessRoles", "email"]);
    expect(error.requestId).toMatch(/\S/);
  });

  it("sends If-Match and answers the ETag; a stale tag is 412 precondition_failed", async () => {
    const user = await request(users.create, { body: { email: "tagged@client.test", accessRoles: [t.memberRoleId] } });
    const { body, etag } = await requestWithTag(users.read, { params: { id: user._id } });
    expect(etag).toMatch(/^"[\w-]+"$/);
    const changed = await request(users.update, {
      params: { id: body._id },
      body: { phone: "+34 600 000 001" },
      ifMatch: etag,
    });
    expect(last().headers.get("if-match")).toBe(etag);
    expect(changed.phone).toBe("+34 600 000 001");
    const stale = await failureOf(
      request(users.update, { params: { id: body._id }, body: { phone: "+34 600 000 002" }, ifMatch: etag }),
    );
    expect(stale).toMatchObject({ status: 412, code: "precondition_failed" });
  });

  it("answers nothing for a 204", async () => {
    const key = await request(apiKeys.create, { body: { name: "client test", scopes: ["users:read"] } });
    const revoked: void = await request(apiKeys.revoke, { params: { id: key._id } });
    expect(last()).toMatchObject({ method: "DELETE", url: `/v2/api-keys/${key._id}` });
    expect(revoked).toBeUndefined();
  });
});
