import { useTestDatabase } from "@/lib/tools/testing/database";
import mongoose from "mongoose";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, databaseKind, databaseName, DEFAULT_DATABASE_NAME, disconnect, ping } from ".";

describe("databaseName", () => {
  it("is the URI's own database when it names one", () => {
    expect(databaseName("mongodb://h:1/app")).toBe("app");
    expect(databaseName("mongodb://u:p%2F@h1:1,h2:2/app?replicaSet=rs")).toBe("app");
    expect(databaseName("mongodb+srv://cluster.example.net/app?retryWrites=true")).toBe("app");
  });

  it("is the default otherwise", () => {
    expect(databaseName("mongodb://h:1")).toBe(DEFAULT_DATABASE_NAME);
    expect(databaseName("mongodb://h:1/")).toBe(DEFAULT_DATABASE_NAME);
    expect(databaseName("mongodb://127.0.0.1:1/?directConnection=true")).toBe(DEFAULT_DATABASE_NAME);
  });
});

describe("connect() with MONGODB_URI", () => {
  const db = useTestDatabase();

  it("opens one shared connection to the URI's server", async () => {
    const [a, b] = await Promise.all([connect(), connect()]);
    expect(a).toBe(b);
    expect(a).toBe(db.mongoose);
    expect(a.connection.readyState).toBe(1);
    expect(a.connection.name).toBe(DEFAULT_DATABASE_NAME);
    expect(databaseKind()).toBe("mongodb");
    await expect(ping()).resolves.toBeUndefined();
  });

  it("stores and reads documents through Mongoose", async () => {
    const Thing = mongoose.model("DbTestThing", new mongoose.Schema({ name: String }, { timestamps: true }));
    const created = await Thing.create({ name: "first" });
    const found = await Thing.findById(created._id).lean();
    expect(found?.name).toBe("first");
    expect(found?.createdAt).toBeInstanceOf(Date);
    await db.clear();
    expect(await Thing.countDocuments()).toBe(0);
  });
});

describe("connect() without MONGODB_URI", () => {
  let dataDir: string;
  const saved = { uri: process.env.MONGODB_URI, dataDir: process.env.DATA_DIR };

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), "usersurveys-db-test-"));
    delete process.env.MONGODB_URI;
    process.env.DATA_DIR = dataDir;
  });

  afterAll(async () => {
    await disconnect();
    for (const [key, value] of [
      ["MONGODB_URI", saved.uri],
      ["DATA_DIR", saved.dataDir],
    ] as const) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    await rm(dataDir, { recursive: true, force: true });
  });

  it("starts the embedded database under DATA_DIR/db", async () => {
    expect(databaseKind()).toBe("embedded");
    const m = await connect();
    expect(m.connection.readyState).toBe(1);
    expect(m.connection.name).toBe(DEFAULT_DATABASE_NAME);
    await expect(ping()).resolves.toBeUndefined();
    const lock = JSON.parse(await readFile(path.join(dataDir, "db", "mongod.lock"), "utf8"));
    expect(lock.pid).toBe(process.pid);
  });

  it("closes it on disconnect, and connects again afterwards", async () => {
    await disconnect();
    expect(mongoose.connection.readyState).toBe(0);
    const m = await connect();
    expect(m.connection.readyState).toBe(1);
    await expect(ping()).resolves.toBeUndefined();
  });
});
