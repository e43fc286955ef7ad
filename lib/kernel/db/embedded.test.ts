/**
 * The app on its embedded database without MONGODB_URI, when no Unix socket can serve it (a data
 * directory too deep for a socket path): it connects over TCP with the credentials generated into
 * DATA_DIR; and DATA_DIR, the database and the token secret are readable by their owner only.
 */
import { startEmbeddedMongo } from "@/lib/embedded-mongo";
import { signingKey } from "@/lib/resources/auth/secret";
import mongoose from "mongoose";
import fs from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { connect, disconnect } from ".";

const mode = (file: string) => fs.statSync(file).mode & 0o777;

describe("the embedded database over TCP, with DATA_DIR owner-only", () => {
  let parent: string;
  let dataDir: string;
  const saved = { uri: process.env.MONGODB_URI, dataDir: process.env.DATA_DIR, secret: process.env.AUTH_SECRET };

  beforeAll(async () => {
    parent = await mkdtemp(path.join(tmpdir(), "usersurveys-tcp-"));
    // Deeper than a Unix socket path may be: the server listens on TCP only.
    dataDir = path.join(parent, "d".repeat(100));
    fs.mkdirSync(dataDir, { mode: 0o755 });
    fs.chmodSync(dataDir, 0o755);
    delete process.env.MONGODB_URI;
    delete process.env.AUTH_SECRET;
    process.env.DATA_DIR = dataDir;
  });

  afterEach(async () => {
    await disconnect();
  });

  afterAll(async () => {
    for (const [key, value] of [
      ["MONGODB_URI", saved.uri],
      ["DATA_DIR", saved.dataDir],
      ["AUTH_SECRET", saved.secret],
    ] as const) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    await rm(parent, { recursive: true, force: true });
  });

  it("starts the database, connects with its credentials, and works; DATA_DIR is tightened to 0700", async () => {
    const m = await connect();
    const client = m.connection.getClient();
    expect(client.options.hosts.map(String)).toEqual([expect.stringMatching(/^127\.0\.0\.1:\d+$/)]);
    expect(client.options.credentials?.username).toBe("embedded");
    const Thing = mongoose.model("EmbeddedTcpThing", new mongoose.Schema({ name: String }));
    const created = await Thing.create({ name: "over tcp" });
    expect((await Thing.findById(created._id).lean())?.name).toBe("over tcp");

    expect(mode(dataDir)).toBe(0o700);
    expect(mode(path.join(dataDir, "db"))).toBe(0o700);
    expect(mode(path.join(dataDir, "db", "credentials.json"))).toBe(0o600);
  });

  it("attaches over TCP, with the credentials, to the database another process serves", async () => {
    const server = await startEmbeddedMongo({ dir: path.join(dataDir, "db") });
    try {
      const m = await connect();
      expect(m.connection.getClient().options.credentials?.username).toBe("embedded");
      await expect(m.connection.db!.command({ listCollections: 1 })).resolves.toMatchObject({ ok: 1 });
      await disconnect();
      // lib/kernel/db only attached: the server still serves.
      const again = await mongoose.createConnection(server.uri).asPromise();
      await again.close();
    } finally {
      await server.close();
    }
  });

  it("tightens a token secret left readable by others", async () => {
    const file = path.join(dataDir, "auth-secret");
    fs.chmodSync(dataDir, 0o755);
    fs.writeFileSync(file, "s".repeat(48));
    fs.chmodSync(file, 0o644);
    await signingKey();
    expect(mode(dataDir)).toBe(0o700);
    expect(mode(file)).toBe(0o600);
  });
});
