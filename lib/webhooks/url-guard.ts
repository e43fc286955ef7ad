/**
 * Which URLs a webhook may call (docs/api.md#webhooks): `http` or `https`, and a host whose every
 * address is public, unless the host as written is listed in `WEBHOOK_ALLOWED_HOSTS`. The check
 * runs when the URL is saved and again at each delivery, which then connects to the very address
 * it checked, so a name that later resolves inside (DNS rebinding) reaches nothing.
 */
import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import { loadConfig } from "@/lib/config";

/** How long a name may take to resolve. */
const RESOLVE_TIMEOUT_MS = 5_000;

const blocked = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], // "this network", 0.0.0.0 included
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, cloud metadata
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15], // benchmarking
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const) blocked.addSubnet(network, prefix, "ipv4");
for (const [network, prefix] of [
  ["::", 96], // unspecified, loopback and the deprecated IPv4-compatible addresses
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local (deprecated)
  ["ff00::", 8], // multicast
] as const) blocked.addSubnet(network, prefix, "ipv6");

/** IPv6 forms that carry an IPv4 address in their last 32 bits: mapped, NAT64, 6to4 (first 32 after 2002:). */
function embeddedIpv4(address: string): string | undefined {
  const words = expandIpv6(address);
  if (!words) return undefined;
  const v4 = (high: number, low: number) => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  const zeros = (from: number, to: number) => words.slice(from, to).every((word) => word === 0);
  if (zeros(0, 5) && words[5] === 0xffff) return v4(words[6], words[7]);
  if (words[0] === 0x64 && words[1] === 0xff9b && zeros(2, 6)) return v4(words[6], words[7]);
  if (words[0] === 0x2002) return v4(words[1], words[2]);
  return undefined;
}

/** The eight 16-bit words of an IPv6 address (a dotted IPv4 tail included). */
function expandIpv6(address: string): number[] | undefined {
  let text = address.toLowerCase().replace(/%.*$/, "");
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1].split(".").map(Number);
    text = `${text.slice(0, -dotted[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split("::");
  const part = (s: string | undefined) => (s ? s.split(":").map((word) => parseInt(word, 16)) : []);
  const left = part(head);
  const right = part(tail);
  const words = tail === undefined ? left : [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  return words.length === 8 && words.every((word) => Number.isInteger(word) && word >= 0 && word <= 0xffff) ? words : undefined;
}

/** Whether an IP address is loopback, private, link-local or otherwise not on the public internet. */
export function isInternalAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, "ipv4");
  if (family !== 6) return true;
  const v4 = embeddedIpv4(address);
  return (v4 !== undefined && blocked.check(v4, "ipv4")) || blocked.check(address.replace(/%.*$/, ""), "ipv6");
}

/** The URL's host as written, without the brackets of an IPv6 literal, in lower case. */
const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, "").toLowerCase();

/** Whether `WEBHOOK_ALLOWED_HOSTS` lists the URL's host as written (never its addresses). */
export function isAllowedHost(url: URL): boolean {
  return loadConfig().webhookAllowedHosts.includes(hostOf(url));
}

export interface Destination {
  url: URL;
  /** The checked address to connect to; the URL's host stays in `Host` and TLS's server name. */
  address: string;
  family: 4 | 6;
}

/** Why a URL may not be called, as a client reads it. */
export class RefusedUrl extends Error {
  override name = "RefusedUrl";
}

/**
 * Resolves the URL's host and checks every address; the first is where to connect. Throws
 * {@link RefusedUrl} for a scheme other than http(s), a name that does not resolve, or any internal
 * address of a host `WEBHOOK_ALLOWED_HOSTS` does not list.
 */
export async function checkDestination(text: string): Promise<Destination> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new RefusedUrl("must be an http:// or https:// URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new RefusedUrl("must be an http:// or https:// URL");
  const host = hostOf(url);
  const allowed = isAllowedHost(url);
  const literal = isIP(host);
  const addresses = literal ? [{ address: host, family: literal as 4 | 6 }] : await resolve(host);
  if (!allowed) {
    const internal = addresses.find(({ address }) => isInternalAddress(address));
    if (internal) throw new RefusedUrl(`must not point to a loopback, private or link-local address (${host} is ${internal.address}) unless its host is in WEBHOOK_ALLOWED_HOSTS`);
  }
  return { url, ...addresses[0] };
}

async function resolve(host: string): Promise<{ address: string; family: 4 | 6 }[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RefusedUrl(`has a host that did not resolve within ${RESOLVE_TIMEOUT_MS / 1000} s`)), RESOLVE_TIMEOUT_MS);
  });
  try {
    const found = await Promise.race([lookup(host, { all: true, verbatim: true }), timeout]);
    if (found.length === 0) throw new RefusedUrl("has a host that does not resolve");
    return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
  } catch (error) {
    if (error instanceof RefusedUrl) throw error;
    throw new RefusedUrl("has a host that does not resolve");
  } finally {
    clearTimeout(timer);
  }
}
