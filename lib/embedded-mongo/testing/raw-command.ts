/**
 * Sends one command document to a server's Unix socket as an OP_MSG and returns the reply, for
 * tests that need fields the driver would not send as given (a chosen `lsid` and `txnNumber`).
 */
import { BSON, type Document } from "bson";
import net from "node:net";

let requestId = 1;

/** `options` reads the reply (`{ promoteValues: false }` keeps every number's BSON type). */
export function rawCommand(
  socketPath: string,
  command: Document,
  options?: BSON.DeserializeOptions,
): Promise<Document> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ path: socketPath });
    let buffered = Buffer.alloc(0);
    socket.once("error", reject);
    socket.on("data", (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (buffered.length >= 4 && buffered.length >= buffered.readInt32LE(0)) {
        socket.destroy();
        resolve(BSON.deserialize(buffered.subarray(21, buffered.readInt32LE(0)), options));
      }
    });
    const body = Buffer.concat([Buffer.alloc(5), Buffer.from(BSON.serialize(command))]);
    const header = Buffer.alloc(16);
    header.writeInt32LE(16 + body.length, 0);
    header.writeInt32LE(requestId++, 4);
    header.writeInt32LE(2013, 12);
    socket.write(Buffer.concat([header, body]));
  });
}
