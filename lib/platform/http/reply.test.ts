import { JsonText } from "@/lib/kernel/json-text";
import { Notes } from "@/lib/kernel/notes";
import { describe, expect, it } from "vitest";
import { Reply, successResponse } from "./reply";

describe("a success's answer", () => {
  const record = { _id: "6b0d0f16d121ad754faf9cca", name: "Ana" };

  it("writes a record written where it was read as it is, with its headers", async () => {
    const response = successResponse(
      new Reply(new JsonText(JSON.stringify(record)), 200, { ETag: '"t"' }),
      "r1",
      undefined,
    );
    expect(response.headers.get("etag")).toBe('"t"');
    expect(response.headers.get("x-request-id")).toBe("r1");
    expect(await response.json()).toEqual(record);
  });

  it("adds ?debug=true's notes to a record written where it was read, as to any other", async () => {
    const notes = new Notes();
    notes.warning("unknown_parameter", "The parameter colour is not known and was ignored.", "colour");
    for (const body of [record, new JsonText(JSON.stringify(record))]) {
      const answer = await successResponse(new Reply(body), "r2", notes).json();
      expect(answer).toEqual({ ...record, debug: notes.list });
    }
  });
});
