/**
 * Who is at the other end of a TCP connection from this machine. On Linux the kernel's tables of
 * TCP sockets (`/proc/net/tcp`, `/proc/net/tcp6`) name the owner (uid) of every socket of this
 * network namespace: the client's socket is the row whose local address is the connection's remote
 * one and whose remote address is the server's. A connection from a socket of the database's own
 * user needs no password, as the Unix socket does: that user can read `credentials.json` anyway
 * (lib/embedded-mongo/README.md "Who can connect"). Whatever cannot be told for certain (no such
 * table, no row, several, a connection not established, a line that does not parse) is not trusted.
 */
import ipaddr from "ipaddr.js";
import fs from "node:fs";
import { readFile } from "node:fs/promises";
import type net from "node:net";
import os from "node:os";

export interface Endpoint {
  address: string;
  port: number;
}

export const TCP_TABLES = { v4: "/proc/net/tcp", v6: "/proc/net/tcp6" } as const;
/** The `st` column of an established connection (TCP_ESTABLISHED). */
const ESTABLISHED = 1;
const LITTLE_ENDIAN = os.endianness() === "LE";
const MAX_UID = 0xffffffff;

/** Whether this machine has the tables, so that a connection's owner can be known at all. */
export function peerOwnersReadable(tables: { v4: string } = TCP_TABLES): boolean {
  try {
    fs.accessSync(tables.v4, fs.constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * A read of `file` that starts after the call. The kernel writes the table afresh on every read,
 * walking every bucket of its hash of connections: milliseconds of system time on a machine with
 * a large hash (262,144 buckets here), whatever the number of rows. Connections accepted while a
 * read runs share the next one, which starts after them and so sees their clients' rows.
 */
function sharedReader(file: string): () => Promise<string> {
  let reading = false;
  let waiting: Array<{ resolve: (text: string) => void; reject: (error: unknown) => void }> = [];
  const run = () => {
    reading = true;
    const batch = waiting;
    waiting = [];
    readFile(file, "latin1")
      .then(
        (text) => batch.forEach((w) => w.resolve(text)),
        (error: unknown) => batch.forEach((w) => w.reject(error)),
      )
      .finally(() => {
        reading = false;
        if (waiting.length > 0) run();
      });
  };
  return () =>
    new Promise<string>((resolve, reject) => {
      waiting.push({ resolve, reject });
      if (!reading) run();
    });
}

const readers = new Map<string, () => Promise<string>>();
function freshRead(file: string): Promise<string> {
  let reader = readers.get(file);
  if (!reader) readers.set(file, (reader = sharedReader(file)));
  return reader();
}

/** An address as hex bytes: IPv4 and IPv4-mapped IPv6 as 4 bytes, other IPv6 as 16. */
function addressKey(address: string): string | undefined {
  try {
    return Buffer.from(ipaddr.process(address).toByteArray()).toString("hex");
  } catch {
    return undefined;
  }
}

const endpointKey = ({ address, port }: Endpoint): string | undefined => {
  const key = addressKey(address);
  return key !== undefined && Number.isInteger(port) && port >= 0 && port <= 0xffff ? `${key}:${port}` : undefined;
};

/**
 * A table's `ADDRESS:PORT` (`0100007F:8460`): the address is printed as 32-bit words in the
 * machine's byte order (little-endian here: 127.0.0.1 is `0100007F`), the port as a number.
 */
function tableEndpointKey(text: string): string | undefined {
  const match = /^([0-9A-F]{8}|[0-9A-F]{32}):([0-9A-F]{4})$/.exec(text);
  if (!match) return undefined;
  const bytes = Buffer.from(match[1], "hex");
  if (LITTLE_ENDIAN) bytes.swap32();
  // ::ffff:a.b.c.d, the IPv4 address an IPv6 socket reaches, is that IPv4 address.
  const mapped =
    bytes.length === 16 && bytes.subarray(0, 10).every((b) => b === 0) && bytes.readUInt16BE(10) === 0xffff;
  return `${(mapped ? bytes.subarray(12) : bytes).toString("hex")}:${parseInt(match[2], 16)}`;
}

interface TableRow {
  local: string;
  remote: string;
  state: number;
  uid: number;
}

/** One line of a table (`sl local_address rem_address st tx:rx tr:when retrnsmt uid ...`). */
function parseRow(line: string): TableRow | undefined {
  const fields = line.trim().split(/\s+/);
  if (fields.length < 8 || !/^\d+:$/.test(fields[0]) || !/^[0-9A-F]{2}$/.test(fields[3])) return undefined;
  if (!/^\d{1,10}$/.test(fields[7]) || Number(fields[7]) > MAX_UID) return undefined;
  const local = tableEndpointKey(fields[1]);
  const remote = tableEndpointKey(fields[2]);
  if (local === undefined || remote === undefined) return undefined;
  return { local, remote, state: parseInt(fields[3], 16), uid: Number(fields[7]) };
}

/**
 * The owner of the socket at `peer` connected to `server`, as the text of a table tells: the uid
 * of its one established row; undefined when there is no such row, or more than one.
 */
export function peerUidIn(table: string, peer: Endpoint, server: Endpoint): number | undefined {
  const peerKey = endpointKey(peer);
  const serverKey = endpointKey(server);
  if (peerKey === undefined || serverKey === undefined) return undefined;
  // Only lines holding the peer's port (as the table spells it) can be its row: the others are not parsed.
  const portText = `:${peer.port.toString(16).toUpperCase().padStart(4, "0")} `;
  const rows: TableRow[] = [];
  for (const line of table.split("\n")) {
    if (!line.includes(portText)) continue;
    const row = parseRow(line);
    if (row?.local === peerKey && row.remote === serverKey) rows.push(row);
  }
  return rows.length === 1 && rows[0].state === ESTABLISHED ? rows[0].uid : undefined;
}

/**
 * A connection the kernel can attribute at all comes from a loopback address or from the very
 * address it reached (a client of this machine calling one of its own addresses); any other
 * comes from elsewhere, and no table is read for it.
 */
function fromThisMachine(peer: string, server: string): boolean {
  try {
    const address = ipaddr.process(peer);
    return address.range() === "loopback" || addressKey(peer) === addressKey(server);
  } catch {
    return false;
  }
}

/**
 * Whether `socket`, an accepted TCP connection, was opened by a socket of user `uid` on this
 * machine. Reads the tables asynchronously (IPv4's first, where an IPv4 client is found; then
 * IPv6's, for an IPv6 socket reaching an IPv4 address); false on anything uncertain. Only the
 * owner of the socket that connected counts: a proxy of that user forwards whoever reaches it.
 */
export async function connectedByUser(
  socket: Pick<net.Socket, "remoteAddress" | "remotePort" | "localAddress" | "localPort">,
  uid: number,
  tables: { v4: string; v6: string } = TCP_TABLES,
): Promise<boolean> {
  const { remoteAddress, remotePort, localAddress, localPort } = socket;
  if (remoteAddress === undefined || remotePort === undefined || localAddress === undefined || localPort === undefined)
    return false;
  if (!fromThisMachine(remoteAddress, localAddress)) return false;
  const peer = { address: remoteAddress, port: remotePort };
  const server = { address: localAddress, port: localPort };
  const ipv4 = ipaddr.process(remoteAddress).kind() === "ipv4";
  for (const file of ipv4 ? [tables.v4, tables.v6] : [tables.v6]) {
    let table: string;
    try {
      table = await freshRead(file);
    } catch {
      continue;
    }
    const owner = peerUidIn(table, peer, server);
    if (owner !== undefined) return owner === uid;
  }
  return false;
}
