/**
 * The embedded, MongoDB-wire-compatible database: one process serves a data directory on a TCP
 * port; any other process that wants the same directory finds the port in the lock file and
 * connects to it instead of opening the files itself (the in-memory catalog lives in one process).
 * Self-contained: imports nothing from the application.
 */
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { listen } from "./server";
import { Store } from "./store";

export interface EmbeddedMongoOptions {
  dir: string;
  /** 0 or unset: any free port. */
  port?: number;
  host?: string;
  /** Accept test-only commands such as `configureFailPoint` (off unless asked for). */
  testCommands?: boolean;
}

export interface EmbeddedMongoHandle {
  /** The TCP address, for any client (mongosh, Compass, another machine's tunnel). */
  uri: string;
  /**
   * The fastest address for a client on this machine: the Unix socket the server also listens
   * on, else the TCP one.
   */
  localUri: string;
  port: number;
  /** True when another process already served `dir` and this handle only points at it. */
  attached: boolean;
  close(): Promise<void>;
}

interface LockInfo {
  pid: number;
  port: number;
  host: string;
  socket?: string;
}

const LOCK_FILE = "mongod.lock";
const SOCKET_FILE = "mongod.sock";
/** Linux allows 107 bytes in a socket path; a deeper data directory is served on TCP only. */
const MAX_SOCKET_PATH = 100;
const START_WAIT_MS = 15_000;

export function uriFor(host: string, port: number): string {
  return `mongodb://${host}:${port}/?directConnection=true`;
}

/** The driver takes a Unix socket as a percent-encoded host ending in `.sock`. */
export function socketUriFor(socketPath: string): string {
  return `mongodb://${encodeURIComponent(socketPath)}/?directConnection=true`;
}

function socketPathFor(dir: string): string | undefined {
  const socketPath = path.join(path.resolve(dir), SOCKET_FILE);
  return process.platform !== "win32" && Buffer.byteLength(socketPath) <= MAX_SOCKET_PATH ? socketPath : undefined;
}

function lockPath(dir: string): string {
  return path.join(dir, LOCK_FILE);
}

function readLock(dir: string): LockInfo | undefined {
  try {
    return JSON.parse(fs.readFileSync(lockPath(dir), "utf8")) as LockInfo;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function answers(address: net.NetConnectOpts): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(address);
    socket.setTimeout(1000);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
    socket.once("timeout", () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/** Takes the lock file, or returns the live owner's lock when another process holds it. */
function acquireLock(dir: string, host: string): LockInfo | undefined {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(lockPath(dir), JSON.stringify({ pid: process.pid, port: 0, host }), { flag: "wx" });
      return undefined;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const owner = readLock(dir);
      if (owner && alive(owner.pid)) return owner;
      fs.rmSync(lockPath(dir), { force: true });
    }
  }
  throw new Error(`cannot take the lock file ${lockPath(dir)}`);
}

/** Opens `dir` and serves it. Fails when another live process already serves it. */
export async function startEmbeddedMongo(opts: EmbeddedMongoOptions): Promise<EmbeddedMongoHandle> {
  const host = opts.host ?? "127.0.0.1";
  fs.mkdirSync(opts.dir, { recursive: true });
  const owner = acquireLock(opts.dir, host);
  if (owner) throw new Error(`${opts.dir} is already served by process ${owner.pid} on port ${owner.port}`);
  let store: Store | undefined;
  try {
    store = Store.open(opts.dir);
    const server = await listen(store, opts.port ?? 0, host, opts.testCommands === true, socketPathFor(opts.dir));
    const lock: LockInfo = { pid: process.pid, port: server.port, host, socket: server.socketPath };
    fs.writeFileSync(lockPath(opts.dir), JSON.stringify(lock));
    const opened = store;
    let closing: Promise<void> | undefined;
    return {
      uri: uriFor(host, server.port),
      localUri: server.socketPath ? socketUriFor(server.socketPath) : uriFor(host, server.port),
      port: server.port,
      attached: false,
      close: () =>
        (closing ??= (async () => {
          await server.close();
          await opened.close();
          if (readLock(opts.dir)?.pid === process.pid) fs.rmSync(lockPath(opts.dir), { force: true });
        })()),
    };
  } catch (err) {
    await store?.close();
    fs.rmSync(lockPath(opts.dir), { force: true });
    throw err;
  }
}

/** Attaches to the process already serving `dir`, or starts serving it here. */
export async function startOrAttach(opts: EmbeddedMongoOptions): Promise<EmbeddedMongoHandle> {
  const deadline = Date.now() + START_WAIT_MS;
  for (;;) {
    const owner = readLock(opts.dir);
    if (!owner || !alive(owner.pid)) {
      try {
        return await startEmbeddedMongo(opts);
      } catch (err) {
        // Another process won the race for the lock: attach to it on the next turn.
        if (!readLock(opts.dir) || Date.now() > deadline) throw err;
      }
    } else if (owner.port > 0 && (await answers({ host: owner.host, port: owner.port }))) {
      const uri = uriFor(owner.host, owner.port);
      const viaSocket = owner.socket !== undefined && (await answers({ path: owner.socket }));
      return { uri, localUri: viaSocket ? socketUriFor(owner.socket!) : uri, port: owner.port, attached: true, close: async () => {} };
    }
    if (Date.now() > deadline) throw new Error(`the embedded database in ${opts.dir} (process ${owner?.pid}) does not answer`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
