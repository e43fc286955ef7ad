/**
 * The embedded, MongoDB-wire-compatible database: one process serves a data directory on a Unix
 * socket inside it and on a TCP port that asks for a password (except of the directory owner's
 * own sockets on this machine, wire/auth-peer.ts); any other process that wants the
 * same directory finds both in the lock file and connects instead of opening the files itself
 * (the in-memory catalog lives in one process). The directory and its files are its owner's only.
 * Self-contained: imports nothing from the application.
 */
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { acquireLock, alive, LOCK_FILE, processStart, readLock, releaseLock, writeLock } from "./storage/lock";
import { privateDirectory, privateFiles } from "./storage/private-files";
import { Store } from "./storage/store";
import { credentialedUri, CREDENTIALS_FILE, loadOrCreateCredentials, readCredentials } from "./wire/credentials";
import { scramSecret } from "./wire/scram";
import { listen } from "./wire/server";

export { privateDirectory } from "./storage/private-files";
export { CREDENTIALS_FILE, readCredentials } from "./wire/credentials";

export interface EmbeddedMongoOptions {
  dir: string;
  /** 0 or unset: any free port. */
  port?: number;
  host?: string;
  /**
   * TCP connections from the directory owner's own sockets on this machine need no password, as
   * the Unix socket's (Linux, README "Who can connect"); true unless false.
   */
  peerTrust?: boolean;
  /** Accept test-only commands such as `configureFailPoint` (off unless asked for). */
  testCommands?: boolean;
  /** The name of the replica set the server presents (`rs0` unless given). */
  replicaSet?: string;
  /** The TCP port of the set's secondary member, on the same host (0 or unset: any free port). */
  secondaryPort?: number;
  /** How long a transaction may stay open before the server aborts it (60 s unless given). */
  transactionLifetimeLimitSeconds?: number;
  /** How many oplog entries change streams can resume from (100,000 unless given). */
  oplogMaxEntries?: number;
  /** How old an oplog entry may grow before it is dropped (one day unless given). */
  oplogMaxAgeSeconds?: number;
}

export interface EmbeddedMongoHandle {
  /**
   * The TCP address with the directory's credentials, for any client (mongosh, Compass, another
   * machine's tunnel); without credentials when the attaching process cannot read them.
   */
  uri: string;
  /**
   * The fastest address for a client on this machine: the Unix socket the server also listens
   * on (no password needed: only the directory's owner can reach it), else the TCP one.
   */
  localUri: string;
  /**
   * The TCP address without credentials, for the directory's owner on this machine, when the
   * server lets the owner's own sockets in without them (see `peerTrust`).
   */
  ownerUri?: string;
  /** The Unix socket that `localUri` names, when there is one. */
  socketPath?: string;
  port: number;
  /**
   * The TCP port of the replica set's secondary member (wire/replset.ts); unknown to a handle
   * that attached to another process (clients discover it from the primary's `hello`).
   */
  secondaryPort?: number;
  /** True when another process already served `dir` and this handle only points at it. */
  attached: boolean;
  close(): Promise<void>;
}

const SOCKET_FILE = "mongod.sock";
/** What LMDB keeps in the directory. */
const DATA_FILES = ["data.mdb", "lock.mdb"];
/** Linux allows 107 bytes in a socket path; a deeper data directory is served on TCP only. */
const MAX_SOCKET_PATH = 100;
const START_WAIT_MS = 15_000;

function uriFor(host: string, port: number): string {
  return `mongodb://${host.includes(":") ? `[${host}]` : host}:${port}/?directConnection=true`;
}

/** The directory owner's uid when this process runs as that owner (where the platform has uids). */
function ownerUid(dir: string): number | undefined {
  const uid = process.geteuid?.();
  try {
    return uid !== undefined && fs.statSync(dir).uid === uid ? uid : undefined;
  } catch {
    return undefined;
  }
}

/** The driver takes a Unix socket as a percent-encoded host ending in `.sock`. */
export function socketUriFor(socketPath: string): string {
  return `mongodb://${encodeURIComponent(socketPath)}/?directConnection=true`;
}

function socketPathFor(dir: string): string | undefined {
  const socketPath = path.join(path.resolve(dir), SOCKET_FILE);
  return process.platform !== "win32" && Buffer.byteLength(socketPath) <= MAX_SOCKET_PATH ? socketPath : undefined;
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

/** Opens `dir` and serves it. Fails when another live process already serves it. */
export async function startEmbeddedMongo(opts: EmbeddedMongoOptions): Promise<EmbeddedMongoHandle> {
  const host = opts.host ?? "127.0.0.1";
  privateDirectory(opts.dir);
  const owner = acquireLock(opts.dir, host);
  if (owner) throw new Error(`${opts.dir} is already served by process ${owner.pid} on port ${owner.port}`);
  let store: Store | undefined;
  try {
    store = Store.open(opts.dir, { maxEntries: opts.oplogMaxEntries, maxAgeSeconds: opts.oplogMaxAgeSeconds });
    const credentials = loadOrCreateCredentials(opts.dir);
    // Files made by an older version, or by LMDB under the process's umask, are closed too.
    privateFiles([...DATA_FILES, LOCK_FILE, CREDENTIALS_FILE].map((file) => path.join(opts.dir, file)));
    const server = await listen(store, {
      port: opts.port ?? 0,
      host,
      user: { name: credentials.user, secret: scramSecret(credentials.password) },
      trustedPeerUid: opts.peerTrust === false ? undefined : ownerUid(opts.dir),
      testCommands: opts.testCommands === true,
      socketPath: socketPathFor(opts.dir),
      replicaSet: opts.replicaSet,
      secondaryPort: opts.secondaryPort,
      transactionLifetimeLimitSeconds: opts.transactionLifetimeLimitSeconds,
    });
    writeLock(opts.dir, {
      pid: process.pid,
      port: server.port,
      host,
      socket: server.socketPath,
      peerTrust: server.peerTrust,
      started: processStart(process.pid),
    });
    const uri = credentialedUri(host, server.port, credentials);
    const opened = store;
    let closing: Promise<void> | undefined;
    return {
      uri,
      localUri: server.socketPath ? socketUriFor(server.socketPath) : uri,
      ownerUri: server.peerTrust ? uriFor(host, server.port) : undefined,
      socketPath: server.socketPath,
      port: server.port,
      secondaryPort: server.secondaryPort,
      attached: false,
      close: () =>
        (closing ??= (async () => {
          await server.close();
          await opened.close();
          releaseLock(opts.dir);
        })()),
    };
  } catch (err) {
    await store?.close();
    releaseLock(opts.dir);
    throw err;
  }
}

/** Attaches to the process already serving `dir`, or starts serving it here. */
export async function startOrAttach(opts: EmbeddedMongoOptions): Promise<EmbeddedMongoHandle> {
  const deadline = Date.now() + START_WAIT_MS;
  for (;;) {
    const owner = readLock(opts.dir);
    if (!owner || !alive(owner)) {
      try {
        return await startEmbeddedMongo(opts);
      } catch (err) {
        // Another process won the race for the lock: attach to it on the next turn.
        if (!readLock(opts.dir) || Date.now() > deadline) throw err;
      }
    } else if (owner.port > 0 && (await answers({ host: owner.host, port: owner.port }))) {
      const credentials = readCredentials(opts.dir);
      const uri = credentials ? credentialedUri(owner.host, owner.port, credentials) : uriFor(owner.host, owner.port);
      const viaSocket = owner.socket !== undefined && (await answers({ path: owner.socket }));
      const socketPath = viaSocket ? owner.socket : undefined;
      return {
        uri,
        localUri: socketPath ? socketUriFor(socketPath) : uri,
        ownerUri:
          owner.peerTrust === true && ownerUid(opts.dir) !== undefined ? uriFor(owner.host, owner.port) : undefined,
        socketPath,
        port: owner.port,
        attached: true,
        close: async () => {},
      };
    }
    if (Date.now() > deadline)
      throw new Error(`the embedded database in ${opts.dir} (process ${owner?.pid}) does not answer`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
