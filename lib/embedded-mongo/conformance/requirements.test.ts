import type { MongoClient } from "mongodb";
import { describe, expect, it } from "vitest";
import { driverLimitation } from "./driver";
import { withUriOptions } from "./entities";
import { unsupportedReason } from "./operations";
import { compareVersions, parseVersion, requirementsUnmet, type ServerInfo } from "./requirements";

const server: ServerInfo = {
  version: [7, 0, 0],
  versionString: "7.0.0",
  maxWireVersion: 21,
  topology: "single",
  auth: false,
  serverless: false,
  failPoints: false,
  parameters: new Map(),
};
// serverParameters is the only rule that talks to the server; these cases never reach it.
const noClient = {} as MongoClient;

describe("runOnRequirements", () => {
  it("compares versions component by component", () => {
    expect(parseVersion("4.2")).toEqual([4, 2, 0]);
    expect(parseVersion("4.9.0-alpha4-271-g7d5cf02")).toEqual([4, 9, 0]);
    expect(compareVersions([4, 0, 10], [4, 0, 9])).toBe(1);
    expect(compareVersions([3, 6, 0], [4, 2, 0])).toBe(-1);
    expect(compareVersions([7, 0, 0], parseVersion("7"))).toBe(0);
  });

  it("runs when any requirement is met, skips with reasons otherwise", async () => {
    expect(await requirementsUnmet(undefined, server, noClient)).toBeNull();
    expect(await requirementsUnmet([{ minServerVersion: "4.4" }], server, noClient)).toBeNull();
    expect(await requirementsUnmet([{ maxServerVersion: "4.2.99" }], server, noClient)).toMatch(/<= 4.2.99/);
    expect(await requirementsUnmet([{ minServerVersion: "8.0" }], server, noClient)).toMatch(/>= 8.0/);
    expect(
      await requirementsUnmet(
        [
          { minServerVersion: "4.0.0", topologies: ["single", "replicaset"] },
          { minServerVersion: "4.2.0", topologies: ["sharded"] },
        ],
        server,
        noClient,
      ),
    ).toBeNull();
    expect(await requirementsUnmet([{ topologies: ["replicaset", "sharded"] }], server, noClient)).toMatch(
      /topology replicaset\/sharded/,
    );
    expect(await requirementsUnmet([{ serverless: "forbid" }], server, noClient)).toBeNull();
    expect(await requirementsUnmet([{ serverless: "require" }], server, noClient)).toMatch(/Serverless/);
    expect(await requirementsUnmet([{ auth: false }], server, noClient)).toBeNull();
    expect(await requirementsUnmet([{ auth: true }], server, noClient)).toMatch(/authentication/);
    expect(await requirementsUnmet([{ csfle: true }], server, noClient)).toMatch(/encryption/);
  });
});

describe("tests the runner cannot run", () => {
  it("names fail points, transactions and unknown operations", () => {
    const op = (name: string, object = "collection0") => ({ name, object });
    expect(unsupportedReason([op("find"), op("insertOne")], false, true)).toBeNull();
    expect(unsupportedReason([op("failPoint", "testRunner")], false, true)).toMatch(/configureFailPoint/);
    expect(unsupportedReason([op("failPoint", "testRunner")], true, true)).toBeNull();
    expect(unsupportedReason([op("startTransaction", "session0")], false, true)).toMatch(/transactions/);
    expect(unsupportedReason([op("frobnicate")], false, true)).toMatch(/not implemented/);
  });

  it("skips inserts of _id: null only when the driver is known to rewrite them", () => {
    const ops = [{ name: "insertOne", object: "c", arguments: { document: { _id: null } } }];
    expect(driverLimitation(ops, { rewritesNullId: true })).toMatch(/NODE-6468/);
    expect(driverLimitation(ops, { rewritesNullId: false })).toBeNull();
    const update = [{ name: "updateOne", object: "c", arguments: { filter: { _id: null }, update: {}, upsert: true } }];
    expect(driverLimitation(update, { rewritesNullId: true })).toBeNull();
  });
});

describe("client uriOptions", () => {
  it("adds and overrides options in the connection string", () => {
    expect(withUriOptions("mongodb://h:1", { retryReads: false })).toBe("mongodb://h:1/?retryReads=false");
    expect(withUriOptions("mongodb://h:1/?directConnection=true&w=1", { w: "majority" })).toBe(
      "mongodb://h:1/?directConnection=true&w=majority",
    );
  });
});
