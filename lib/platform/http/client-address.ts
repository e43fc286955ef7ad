/**
 * The client's address, for per-address limits. The server appends the socket's address to
 * `X-Forwarded-For` on every request (lib/platform/http/socket-address.ts), so the header's last entry is
 * the peer that connected. `TRUST_PROXY` says how many of the entries before it came from proxies
 * of our own (docs/security.md, "What TRUST_PROXY means"); anything further left was written by
 * the client and is never believed.
 */
import { type BlockList, isIP } from "node:net";
import { hasSocketAddress, type RequestHeads } from "./socket-address";

import type { TrustProxy } from "@/lib/base/config/trust-proxy";

/**
 * The address the request came from, by the `TRUST_PROXY` rule; `"unknown"` when none is known.
 * Requests whose header lacks the socket's address (the first ones, while the server starts)
 * share one address, `"unverified"`, rather than be believed.
 */
export function clientAddress(request: Request, trust: TrustProxy): string {
  if (!hasSocketAddress(request)) return "unverified";
  const hops = (request.headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map(normalize)
    .filter((hop) => hop !== "");
  if (hops.length === 0) return "unknown";
  if (trust.kind === "hops") return hops[Math.max(0, hops.length - 1 - trust.hops)];
  for (let i = hops.length - 1; i >= 0; i--) {
    if (!isTrusted(hops[i], trust.list)) return hops[i];
  }
  return hops[0];
}

/**
 * The key of an address in a per-address limit: IPv6 by its /64 (one host is commonly given a
 * whole /64, so counting single addresses would let it rotate through billions of them).
 */
export function addressKey(address: string): string {
  if (isIP(address) !== 6) return address;
  const [head, tail] = address.split("::");
  const front = head ? head.split(":") : [];
  const back = tail ? tail.split(":") : [];
  const groups =
    tail === undefined
      ? front
      : [...front, ...Array<string>(Math.max(0, 8 - front.length - back.length)).fill("0"), ...back];
  return `${groups
    .slice(0, 4)
    .map((group) => parseInt(group, 16).toString(16))
    .join(":")}::/64`;
}

function normalize(hop: string): string {
  let address = hop.trim().toLowerCase();
  if (address.startsWith("[") && address.includes("]")) address = address.slice(1, address.indexOf("]"));
  // Dual-stack sockets report IPv4 peers as IPv4-mapped IPv6; some proxies append a port.
  if (address.startsWith("::ffff:") && isIP(address.slice(7)) === 4) address = address.slice(7);
  const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(address);
  if (withPort) address = withPort[1];
  return address.slice(0, 64);
}

/** The address of the peer that connected (the entry the server appended), if it is known. */
export function peerAddress(request: RequestHeads): string | undefined {
  if (!hasSocketAddress(request)) return undefined;
  const last = normalize((request.headers.get("x-forwarded-for") ?? "").split(",").at(-1) ?? "");
  return last === "" ? undefined : last;
}

/** Whether an address is one of the proxies an address-list `TRUST_PROXY` names. */
export function isTrustedProxy(address: string, trust: Extract<TrustProxy, { kind: "addresses" }>): boolean {
  return isTrusted(address, trust.list);
}

function isTrusted(address: string, list: BlockList): boolean {
  const family = isIP(address);
  return family !== 0 && list.check(address, family === 4 ? "ipv4" : "ipv6");
}
