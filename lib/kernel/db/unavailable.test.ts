/**
 * Which failures mean "the database is away" (a 503 worth retrying) rather than a fault of ours (a
 * 500): classified from errors the driver and the operating system really raise.
 */
import { MongoClient } from "mongodb";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isDatabaseUnavailable } from ".";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "unavailable-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The error of writing to a socket whose other end has gone (a killed database process). */
async function writeToClosedPeer(): Promise<NodeJS.ErrnoException> {
  const socketPath = path.join(dir, "peer.sock");
  const server = net.createServer((peer) => peer.destroy());
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  try {
    const client = net.connect(socketPath);
    return await new Promise((resolve) => {
      client.on("error", resolve);
      const chunk = Buffer.alloc(64 * 1024);
      const write = () => {
        if (client.destroyed) return;
        client.write(chunk);
        setImmediate(write);
      };
      client.on("connect", write);
    });
  } finally {
    server.close();
  }
}

describe("isDatabaseUnavailable", () => {
  it("is true of a socket error the driver lets through as it is (write EPIPE)", async () => {
    const error = await writeToClosedPeer();
    expect(error.code).toMatch(/^(EPIPE|ECONNRESET)$/);
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it("is true of that error as a read worker answers it: only its name, message and code", async () => {
    const { name, message, code } = await writeToClosedPeer();
    expect(isDatabaseUnavailable(Object.assign(new Error(message), { name, code }))).toBe(true);
  });

  it("is true of the driver's own error when no server answers, and of an error caused by it", async () => {
    const client = new MongoClient(`mongodb://${encodeURIComponent(path.join(dir, "nobody.sock"))}`, {
      serverSelectionTimeoutMS: 200,
    });
    const error = await client
      .db("x")
      .command({ ping: 1 })
      .then(
        () => undefined,
        (failure: unknown) => failure,
      );
    await client.close();
    expect((error as Error).name).toBe("MongoServerSelectionError");
    expect(isDatabaseUnavailable(error)).toBe(true);
    expect(isDatabaseUnavailable(new Error("listing failed", { cause: error }))).toBe(true);
  });

  it("is false of failures that are not the database being away", async () => {
    const missing = await readFile(path.join(dir, "absent")).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect((missing as NodeJS.ErrnoException).code).toBe("ENOENT");
    expect(isDatabaseUnavailable(missing)).toBe(false);
    expect(isDatabaseUnavailable(new TypeError("x is not a function"))).toBe(false);
    expect(
      isDatabaseUnavailable(
        Object.assign(new Error("E11000 duplicate key"), { name: "MongoServerError", code: 11000 }),
      ),
    ).toBe(false);
    expect(isDatabaseUnavailable("EPIPE")).toBe(false);
    expect(isDatabaseUnavailable(null)).toBe(false);
  });
});
