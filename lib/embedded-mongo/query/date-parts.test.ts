/** `$dateFromParts` with parts left out, answered as MongoDB answers it (month and day default to 1). */
import { MongoClient } from "mongodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempServerForThisFile } from "../testing/temp-server";

const server = tempServerForThisFile("date-parts");
let client: MongoClient;

beforeAll(async () => {
  client = await MongoClient.connect(server.uri);
});
afterAll(async () => {
  await client?.close();
});

describe("$dateFromParts", () => {
  it("takes a missing month or day as 1, in $project and in a $group key", async () => {
    const c = client.db("date_parts").collection("c");
    await c.insertMany([
      { at: new Date("2026-02-15T12:00:00Z") },
      { at: new Date("2026-02-28T23:00:00Z") },
      { at: new Date("2026-03-01T00:00:00Z") },
    ]);
    const [projected] = await c
      .aggregate([
        { $sort: { at: 1 } },
        { $limit: 1 },
        {
          $project: {
            _id: 0,
            month: { $dateFromParts: { year: { $year: "$at" }, month: { $month: "$at" } } },
            year: { $dateFromParts: { year: 2026 } },
            full: { $dateFromParts: { year: 2026, month: 2, day: 15, hour: 12 } },
            literal: { $literal: { $dateFromParts: { year: 2026 } } },
          },
        },
      ])
      .toArray();
    expect(projected).toEqual({
      month: new Date("2026-02-01T00:00:00Z"),
      year: new Date("2026-01-01T00:00:00Z"),
      full: new Date("2026-02-15T12:00:00Z"),
      literal: { $dateFromParts: { year: 2026 } },
    });
    const groups = await c
      .aggregate([
        { $group: { _id: { $dateFromParts: { year: { $year: "$at" }, month: { $month: "$at" } } }, n: { $sum: 1 } } },
        { $sort: { _id: 1 } },
      ])
      .toArray();
    expect(groups).toEqual([
      { _id: new Date("2026-02-01T00:00:00Z"), n: 2 },
      { _id: new Date("2026-03-01T00:00:00Z"), n: 1 },
    ]);
  });
});
