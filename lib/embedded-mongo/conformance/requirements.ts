/** What the target server is, and whether a test's `runOnRequirements` allow it to run there. */
import type { MongoClient } from "mongodb";
import type { RunOnRequirement } from "./loader";
import { match } from "./matcher";

type Topology = "single" | "replicaset" | "sharded" | "load-balanced";

export interface ServerInfo {
  version: number[];
  versionString: string;
  maxWireVersion: number;
  topology: Topology;
  auth: boolean;
  serverless: boolean;
  /** Whether `configureFailPoint` works (so `failPoint` operations can run). */
  failPoints: boolean;
  /** Cache of getParameter answers (undefined value: not supported). */
  parameters: Map<string, unknown>;
}

export function parseVersion(v: string): number[] {
  const parts = v
    .split("-")[0]
    .split(".")
    .map((x) => Number.parseInt(x, 10));
  while (parts.length < 3) parts.push(0);
  return parts.slice(0, 3).map((n) => (Number.isNaN(n) ? 0 : n));
}

export function compareVersions(a: number[], b: number[]): number {
  for (let i = 0; i < 3; i++) {
    if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) < (b[i] ?? 0) ? -1 : 1;
  }
  return 0;
}

/** Queries the server through the internal client. */
export async function detectServer(client: MongoClient, uri: string): Promise<ServerInfo> {
  const admin = client.db("admin");
  const hello = await admin.command({ hello: 1 }).catch(() => admin.command({ isMaster: 1 }));
  let versionString = "0.0.0";
  let version = [0, 0, 0];
  try {
    const build = await admin.command({ buildInfo: 1 });
    if (Array.isArray(build.versionArray) && build.versionArray.length >= 3) {
      version = build.versionArray.slice(0, 3).map((n: unknown) => Number(n));
      versionString = version.join(".");
    } else if (typeof build.version === "string") {
      versionString = build.version;
      version = parseVersion(build.version);
    }
  } catch {
    // Without buildInfo, fall back to the wire version (21 = 7.0, 17 = 6.0, ...).
  }
  let topology: Topology = "single";
  if (hello.msg === "isdbgrid") topology = "sharded";
  else if (hello.setName) topology = "replicaset";
  else if (hello.serviceId) topology = "load-balanced";
  const auth = /^mongodb(\+srv)?:\/\/[^/@]+@/.test(uri);
  let failPoints = false;
  try {
    await admin.command({ configureFailPoint: "failCommand", mode: "off" });
    failPoints = true;
  } catch {
    failPoints = false;
  }
  return {
    version,
    versionString,
    maxWireVersion: Number(hello.maxWireVersion ?? 0),
    topology,
    auth,
    serverless: process.env.SERVERLESS === "1" || process.env.SERVERLESS === "true",
    failPoints,
    parameters: new Map(),
  };
}

/** Why one requirement is not met, or null when it is. */
async function requirementUnmet(
  req: RunOnRequirement,
  server: ServerInfo,
  client: MongoClient,
): Promise<string | null> {
  if (req.minServerVersion && compareVersions(server.version, parseVersion(req.minServerVersion)) < 0)
    return `needs server >= ${req.minServerVersion} (target is ${server.versionString})`;
  if (req.maxServerVersion && compareVersions(server.version, parseVersion(req.maxServerVersion)) > 0)
    return `needs server <= ${req.maxServerVersion} (target is ${server.versionString})`;
  if (req.topologies && req.topologies.length) {
    const ok = req.topologies.some(
      (t) => t === server.topology || (t === "sharded-replicaset" && server.topology === "sharded"),
    );
    if (!ok) return `needs topology ${req.topologies.join("/")} (target is ${server.topology})`;
  }
  if (req.serverless === "require" && !server.serverless) return "needs Atlas Serverless";
  if (req.serverless === "forbid" && server.serverless) return "not run on Atlas Serverless";
  if (req.auth === true && !server.auth) return "needs authentication enabled";
  if (req.auth === false && server.auth) return "needs authentication disabled";
  if (req.authMechanism) return `needs auth mechanism ${req.authMechanism}`;
  if (req.csfle === true) return "needs client-side field level encryption (libmongocrypt)";
  if (req.serverParameters) {
    for (const [name, expected] of Object.entries(req.serverParameters)) {
      if (!server.parameters.has(name)) {
        try {
          const r = await client.db("admin").command({ getParameter: 1, [name]: 1 });
          server.parameters.set(name, r[name]);
        } catch {
          server.parameters.set(name, undefined);
        }
      }
      const actual = server.parameters.get(name);
      if (actual === undefined || match(expected, actual, { root: false }))
        return `needs server parameter ${name}=${JSON.stringify(expected)}`;
    }
  }
  return null;
}

/** Null when at least one requirement is met (or there are none), else the reasons. */
export async function requirementsUnmet(
  reqs: RunOnRequirement[] | undefined,
  server: ServerInfo,
  client: MongoClient,
): Promise<string | null> {
  if (!reqs || reqs.length === 0) return null;
  const reasons: string[] = [];
  for (const req of reqs) {
    const why = await requirementUnmet(req, server, client);
    if (!why) return null;
    reasons.push(why);
  }
  return [...new Set(reasons)].join("; or ");
}
