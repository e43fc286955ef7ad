/**
 * How clients reach the server of a directory: TCP for anyone, and the Unix socket beside the
 * lock file for a process on this machine (lib/kernel/db attaches through it).
 */
import { MongoClient } from "mongodb";
import fs from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startEmbeddedMongo, startOrAttach } from "./index";

const dirs: string[] = [];
const tempDir = async (suffix = "") => {
  const dir = path.join(await mkdtemp(path.join(tmpdir(), "embedded-mongo-attach-")), suffix);
  dirs.push(dir);
  return dir;
};

afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function roundTrip(uri: string, value: string): Promise<string[]> {
  const client = await MongoClient.connect(uri);
  try {
    const coll = client.db("attach").collection<{ _id: string }>("values");
    await coll.insertOne({ _id: value });
    return (await coll.find().sort({ _id: 1 }).toArray()).map((doc) => doc._id);
  } finally {
    await client.close();
  }
}

describe("addresses of the embedded database", () => {
  it("serves one directory on TCP and on a Unix socket, and an attaching process is given the socket", async () => {
    const dir = await tempDir();
    const owner = await startEmbeddedMongo({ dir });
    try {
      const socket = path.join(dir, "mongod.sock");
      expect(owner.localUri).toBe(`mongodb://${encodeURIComponent(socket)}/?directConnection=true`);
      expect(fs.statSync(socket).isSocket()).toBe(true);
      expect(JSON.parse(fs.readFileSync(path.join(dir, "mongod.lock"), "utf8"))).toMatchObject({
        port: owner.port,
        socket,
      });

      expect(await roundTrip(owner.localUri, "via socket")).toEqual(["via socket"]);
      expect(await roundTrip(owner.uri, "via tcp")).toEqual(["via socket", "via tcp"]);

      const attached = await startOrAttach({ dir });
      expect(attached).toMatchObject({ attached: true, uri: owner.uri, localUri: owner.localUri });
      expect(await roundTrip(attached.localUri, "attached")).toEqual(["attached", "via socket", "via tcp"]);
    } finally {
      await owner.close();
    }
    expect(fs.existsSync(path.join(dir, "mongod.sock"))).toBe(false);
    expect(fs.existsSync(path.join(dir, "mongod.lock"))).toBe(false);
  });

  it("takes over a socket file left by a dead process", async () => {
    const dir = await tempDir();
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "mongod.sock"), "left over");
    const owner = await startEmbeddedMongo({ dir });
    try {
      expect(await roundTrip(owner.localUri, "fresh")).toEqual(["fresh"]);
    } finally {
      await owner.close();
    }
  });

  it("serves on TCP alone when the socket cannot be made", async () => {
    const dir = await tempDir();
    fs.mkdirSync(path.join(dir, "mongod.sock", "in-the-way"), { recursive: true });
    const owner = await startEmbeddedMongo({ dir });
    try {
      expect(owner.localUri).toBe(owner.uri);
      expect(await roundTrip(owner.localUri, "tcp")).toEqual(["tcp"]);
      expect((await startOrAttach({ dir })).localUri).toBe(owner.uri);
    } finally {
      await owner.close();
    }
  });

  it("serves a directory too deep for a socket path on TCP only", async () => {
    const dir = await tempDir("d".repeat(100));
    const owner = await startEmbeddedMongo({ dir });
    try {
      expect(owner.localUri).toBe(owner.uri);
      expect(fs.existsSync(path.join(dir, "mongod.sock"))).toBe(false);
      expect(await roundTrip(owner.localUri, "tcp only")).toEqual(["tcp only"]);
      expect((await startOrAttach({ dir })).localUri).toBe(owner.uri);
    } finally {
      await owner.close();
    }
  });
});
