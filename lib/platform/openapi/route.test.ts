import * as openapi from "@/app/v2/openapi.json/route";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, failure, success } from "@/lib/tools/testing/http";
import { describe, expect, it } from "vitest";
import { openApiDocument } from "./document";

describe("GET /v2/openapi.json", () => {
  useTestDatabase();

  it("answers the document without a token", async () => {
    const response = await call(openapi.GET, "/v2/openapi.json");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(response.headers.get("x-request-id")).toBeTruthy();
    expect(response.body).toEqual(JSON.parse(JSON.stringify(openApiDocument())));
    expect(success(response).openapi).toMatch(/^3\.1\./);
  });

  it("refuses a bad debug value like every route", async () => {
    const response = await call(openapi.GET, "/v2/openapi.json?debug=yes");
    expect(response.status).toBe(400);
    expect(failure(response).code).toBe("invalid_request");
  });
});
