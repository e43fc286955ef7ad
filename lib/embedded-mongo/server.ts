/**
 * The TCP side: frames messages per connection, runs their commands one after another (a
 * connection's replies keep their order), and answers in the protocol the request came in. A
 * malformed message closes only its own connection.
 */
import net from "node:net";
import { CLOSE_CONNECTION, runCommand } from "./commands";
import { FailPoints } from "./commands/failpoint";
import { CursorRegistry } from "./cursors";
import type { Store } from "./store";
import { MORE_TO_COME, OP_MSG, encodeOpMsg, encodeOpReply, frameLength, parseMessage } from "./wire";

export interface WireServer {
  port: number;
  close(): Promise<void>;
}

export async function listen(store: Store, port: number, host: string, testCommands = false): Promise<WireServer> {
  const cursors = new CursorRegistry();
  const failPoints = testCommands ? new FailPoints() : undefined;
  const sockets = new Set<net.Socket>();
  // The tail of each connection's command chain, so close() can wait for commands in flight.
  const queues = new Map<net.Socket, Promise<void>>();
  let totalConnections = 0;
  const info = { startedAt: Date.now(), port, connections: () => sockets.size, totalConnections: () => totalConnections };

  const server = net.createServer((socket) => {
    totalConnections += 1;
    const connectionId = totalConnections;
    sockets.add(socket);
    socket.setNoDelay(true);
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
            const reply = await runCommand(message.command, { store, cursors, server: info, connectionId, failPoints });
            if (reply === CLOSE_CONNECTION) {
              socket.destroy();
              return;
            }
            if (message.opCode === OP_MSG && message.flags & MORE_TO_COME) return;
            if (socket.destroyed) return;
            socket.write(message.opCode === OP_MSG ? encodeOpMsg(message.requestId, reply) : encodeOpReply(message.requestId, reply));
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
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  info.port = typeof address === "object" && address ? address.port : port;

  return {
    port: info.port,
    close: async () => {
      cursors.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      // Commands already running finish their transactions before the store closes.
      await Promise.allSettled(queues.values());
    },
  };
}
