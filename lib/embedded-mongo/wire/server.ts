/**
 * The network side: frames messages per connection, runs their commands one after another (a
 * connection's replies keep their order), and answers in the protocol the request came in. A
 * malformed message closes only its own connection. A TCP connection must authenticate before
 * anything but the handshake; one on the Unix socket, which only the directory's owner can reach,
 * need not, nor one from a socket of that owner on this machine (auth-peer.ts). A second TCP
 * port serves the replica set's secondary (replset.ts), with the same authentication as the
 * primary's.
 */
import { setMaxListeners } from "node:events";
import fs from "node:fs";
import net from "node:net";
import { CLOSE_CONNECTION, runCommand } from "../commands";
import { allowedBeforeAuth } from "../commands/auth";
import type { ConnectionAuth, ServerUser } from "../commands/context";
import { FailPoints } from "../commands/failpoint";
import { PRIVATE_FILE_MODE } from "../storage/private-files";
import type { Store } from "../storage/store";
import { ttlMonitorOf } from "../storage/ttl";
import { DEFAULT_TRANSACTION_LIFETIME_SECONDS, Sessions } from "../txn/transactions";
import { connectedByUser, peerOwnersReadable } from "./auth-peer";
import { CursorRegistry } from "./cursors";
import { DEFAULT_REPLICA_SET, awaitableHelloWait, newReplicaSet, type MemberView } from "./replset";
import { EXHAUST_ALLOWED, MORE_TO_COME, OP_MSG, encodeOpMsg, encodeOpReply, frameLength, parseMessage } from "./wire";

export interface WireServer {
  port: number;
  /** The secondary member's TCP port, on the same host. */
  secondaryPort: number;
  /** The Unix socket also served, when one was asked for and could be listened on. */
  socketPath?: string;
  /** Whether TCP connections from the trusted user's sockets on this machine skip authentication. */
  peerTrust: boolean;
  close(): Promise<void>;
}

export interface ListenOptions {
  port: number;
  host: string;
  /** The user TCP clients authenticate as; without one, TCP clients can run only the handshake. */
  user?: ServerUser;
  testCommands?: boolean;
  /**
   * A TCP connection from a socket of this user (uid) on this machine needs no authentication,
   * where the kernel tells a socket's owner (Linux's /proc/net/tcp); elsewhere it is ignored.
   */
  trustedPeerUid?: number;
  /** Also serve this Unix socket (mode 0600), whose connections need no authentication. */
  socketPath?: string;
  /** The name of the replica set the server presents. */
  replicaSet?: string;
  /** The secondary member's TCP port on `host` (0 or unset: a free one). */
  secondaryPort?: number;
  /** How long a transaction may stay open before the server aborts it (MongoDB's 60 s by default). */
  transactionLifetimeLimitSeconds?: number;
}

/**
 * Serves `store` on a TCP port and, when `socketPath` is given, on that Unix socket too (as
 * mongod does): a local client that uses the socket skips the TCP stack, which on loopback costs
 * both processes a measurable share of each round trip.
 */
export async function listen(
  store: Store,
  {
    port,
    host,
    user,
    trustedPeerUid,
    testCommands = false,
    socketPath,
    replicaSet = DEFAULT_REPLICA_SET,
    secondaryPort = 0,
    transactionLifetimeLimitSeconds = DEFAULT_TRANSACTION_LIFETIME_SECONDS,
  }: ListenOptions,
): Promise<WireServer> {
  // Each member has its own cursors, as each mongod has: a cursor is continued where it was opened.
  const cursorsOf = { primary: new CursorRegistry(), secondary: new CursorRegistry() };
  const sessions = new Sessions(store, transactionLifetimeLimitSeconds * 1000);
  const ttl = ttlMonitorOf(store);
  ttl.start();
  const failPoints = testCommands ? new FailPoints() : undefined;
  const sockets = new Set<net.Socket>();
  // The tail of each connection's command chain, so close() can wait for commands in flight.
  const queues = new Map<net.Socket, Promise<void>>();
  let totalConnections = 0;
  const closing = new AbortController();
  // Every awaitable hello (each client's monitor of each member) waits on this signal.
  setMaxListeners(0, closing.signal);
  const info = {
    startedAt: Date.now(),
    port,
    connections: () => sockets.size,
    totalConnections: () => totalConnections,
    replicaSet: newReplicaSet(replicaSet),
    closing: closing.signal,
  };

  const serve = (socket: net.Socket, authRequired: boolean | Promise<boolean>, member: MemberView) => {
    totalConnections += 1;
    // Until a pending decision is known, the connection is one that must authenticate.
    const auth: ConnectionAuth = { required: authRequired !== false };
    // A TCP peer's owner is read from /proc (auth-peer.ts) while the handshake runs, whose answers
    // do not depend on it; any other command waits for it.
    let deciding =
      authRequired instanceof Promise
        ? authRequired.then((required) => {
            auth.required = required;
            deciding = undefined;
          })
        : undefined;
    const connectionId = totalConnections;
    const cursors = cursorsOf[member.role];
    sockets.add(socket);
    if (socket.remotePort !== undefined) socket.setNoDelay(true);
    let pending = Buffer.alloc(0);
    let queue = Promise.resolve();

    socket.on("data", (chunk) => {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      try {
        for (let length = frameLength(pending); length > 0; length = frameLength(pending)) {
          const frame = pending.subarray(0, length);
          pending = pending.subarray(length);
          const message = parseMessage(frame);
          queue = queue.then(async () => {
            if (deciding && !allowedBeforeAuth(message.command)) await deciding;
            const context = { store, cursors, sessions, server: info, connectionId, auth, user, failPoints, member };
            let responseTo = message.requestId;
            for (;;) {
              const reply = await runCommand(message.command, context);
              if (reply === CLOSE_CONNECTION) {
                socket.destroy();
                return;
              }
              if (message.opCode === OP_MSG && message.flags & MORE_TO_COME) return;
              if (socket.destroyed) return;
              if (message.opCode !== OP_MSG) {
                socket.write(encodeOpReply(responseTo, reply));
                return;
              }
              // A streaming hello answers again after each wait, until the client goes away.
              const exhaust =
                message.flags & EXHAUST_ALLOWED &&
                reply.ok === 1 &&
                awaitableHelloWait(message.command, info.replicaSet) !== undefined &&
                !closing.signal.aborted;
              const frame = encodeOpMsg(responseTo, reply, exhaust ? MORE_TO_COME : 0);
              socket.write(frame);
              if (!exhaust) return;
              responseTo = frame.readInt32LE(4);
            }
          });
          queues.set(socket, queue);
        }
      } catch {
        // Framing or BSON that cannot be read: this connection's stream is lost, the others are not.
        socket.destroy();
      }
    });
    socket.on("error", () => socket.destroy());
    socket.on("close", () => {
      sockets.delete(socket);
      void queue.then(() => queues.delete(socket));
    });
  };

  const peerUid = trustedPeerUid !== undefined && peerOwnersReadable() ? trustedPeerUid : undefined;
  const tcpAuthRequired = (socket: net.Socket) =>
    peerUid === undefined
      ? true
      : connectedByUser(socket, peerUid).then(
          (trusted) => !trusted,
          () => true,
        );
  const servers: net.Server[] = [];
  const close = async () => {
    closing.abort();
    cursorsOf.primary.close();
    cursorsOf.secondary.close();
    sessions.close();
    await ttl.close();
    const closed = servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve())));
    for (const socket of sockets) socket.destroy();
    await Promise.all(closed);
    // Commands already running finish their transactions before the store closes.
    await Promise.allSettled(queues.values());
  };

  // Both members' addresses, on the host this client reached (its next connections go there).
  let servedSecondaryPort = secondaryPort;
  const tcpMember = (socket: net.Socket, role: MemberView["role"]): MemberView => {
    const reached = tcpHost(socket);
    return { role, primary: `${reached}:${info.port}`, secondary: `${reached}:${servedSecondaryPort}` };
  };
  servers.push(net.createServer((socket) => serve(socket, tcpAuthRequired(socket), tcpMember(socket, "primary"))));
  await listenOn(servers[0], { port, host });
  info.port = portOf(servers[0], port);
  const secondaryServer = net.createServer((socket) =>
    serve(socket, tcpAuthRequired(socket), tcpMember(socket, "secondary")),
  );
  try {
    await listenOn(secondaryServer, { port: secondaryPort, host });
  } catch (error) {
    // The secondary's port is taken: nothing is served, as when the primary's is.
    await close();
    throw error;
  }
  servers.push(secondaryServer);
  servedSecondaryPort = portOf(secondaryServer, secondaryPort);
  let servedSocket: string | undefined;
  if (socketPath) {
    const onSocket: MemberView = {
      role: "primary",
      primary: socketPath,
      secondary: `${listeningHost(host)}:${servedSecondaryPort}`,
      viaSocket: true,
    };
    const socketServer = net.createServer((socket) => serve(socket, false, onSocket));
    try {
      // The caller holds the directory's lock: a socket file left there is a dead process's.
      fs.rmSync(socketPath, { force: true });
      await listenOn(socketServer, { path: socketPath });
      fs.chmodSync(socketPath, PRIVATE_FILE_MODE);
      servers.push(socketServer);
      servedSocket = socketPath;
    } catch {
      // No socket there (a file system without sockets, a directory in the way): TCP alone serves.
      socketServer.close();
    }
  }

  return {
    port: info.port,
    secondaryPort: servedSecondaryPort,
    socketPath: servedSocket,
    peerTrust: peerUid !== undefined,
    close,
  };
}

function listenOn(server: net.Server, where: net.ListenOptions): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(where, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

function portOf(server: net.Server, asked: number): number {
  const address = server.address();
  return typeof address === "object" && address ? address.port : asked;
}

/** Where a client of this machine reaches the TCP ports: a wildcard address is reached on loopback. */
function listeningHost(host: string): string {
  if (host === "0.0.0.0" || host === "") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") ? `[${host}]` : host;
}

/** The host part of the address a TCP client reached, as drivers write it (IPv6 in brackets). */
function tcpHost(socket: net.Socket): string {
  const address = (socket.localAddress ?? "127.0.0.1").replace(/^::ffff:/, "");
  return address.includes(":") ? `[${address}]` : address;
}
