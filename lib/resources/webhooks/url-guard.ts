/**
 * Which URLs a webhook may call (docs/security.md#webhook-urls): `http` or `https`, a port other
 * than 0, and a host whose every address is public, unless the host as written is listed in
 * `WEBHOOK_ALLOWED_HOSTS`. The check runs when the URL is saved and again at each delivery, which
 * then connects to the very address it checked, so a name that later resolves inside (DNS
 * rebinding) reaches nothing.
 *
 * "Public" is read from ipaddr.js's table of special-purpose ranges (kept with the IANA registries):
 * an address is public only when that table calls it `unicast` and, for IPv6, it lies in the
 * global unicast space `2000::/3`. Every IPv6 range that carries an IPv4 address (mapped, SIIT,
 * both NAT64 prefixes, Teredo, 6to4) is refused whole, never unpacked.
 */
import { loadConfig } from "@/lib/base/config";
import ipaddr from "ipaddr.js";
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";

/** How long a name may take to resolve. */
const RESOLVE_TIMEOUT_MS = 5_000;

/** IANA allocates IPv6 global unicast from 2000::/3 only: the rest (`::/96` IPv4-compatible, `100::/64`...) is special or reserved. */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR("2000::/3");

/** The words a refusal names a range by (ipaddr.js's names, read aloud). */
const RANGE_NAMES: Record<string, string> = {
  unspecified: "unspecified",
  broadcast: "broadcast",
  multicast: "multicast",
  linkLocal: "link-local",
  loopback: "loopback",
  carrierGradeNat: "carrier-grade NAT",
  private: "private",
  reserved: "reserved or documentation",
  benchmarking: "benchmarking",
  amt: "AMT anycast",
  as112: "AS112 anycast",
  as112v6: "AS112 anycast",
  uniqueLocal: "unique local",
  ipv4Mapped: "IPv4-mapped",
  rfc6145: "SIIT IPv4-translated",
  rfc6052: "NAT64",
  "6to4": "6to4",
  teredo: "Teredo",
  deprecatedSiteLocal: "site-local",
  discard: "discard-only",
  deprecatedOrchid: "ORCHID",
  orchid2: "ORCHID",
  droneRemoteIdProtocolEntityTags: "drone remote ID",
  segmentRouting: "segment routing",
  notGlobal: "outside the global unicast space 2000::/3",
  invalid: "not an IP address",
};

/**
 * The special-purpose range an IP address is in, read aloud ("loopback", "NAT64"...), or
 * `undefined` for a public address: the one kind a webhook may reach without
 * `WEBHOOK_ALLOWED_HOSTS`.
 */
export function specialRange(address: string): string | undefined {
  const text = address.replace(/%.*$/, "");
  // node:net is the judge of what an address is: ipaddr.js also reads forms such as 0x7f.1.
  const family = isIP(text);
  if (family === 0) return RANGE_NAMES.invalid;
  // An IPv6 address goes to ipaddr.js in the URL standard's hex form: ipaddr.js reads a dotted tail
  // after "::" (::127.0.0.1) as IPv4-mapped, which it is not.
  const parsed =
    family === 4 ? ipaddr.IPv4.parse(text) : ipaddr.IPv6.parse(new URL(`http://[${text}]/`).hostname.slice(1, -1));
  const range = parsed.range();
  if (range !== "unicast") return RANGE_NAMES[range] ?? range;
  if (parsed.kind() === "ipv6" && !parsed.match(GLOBAL_UNICAST_V6)) return RANGE_NAMES.notGlobal;
  return undefined;
}

/** Whether an IP address is not a public unicast one (see {@link specialRange}). */
export const isInternalAddress = (address: string): boolean => specialRange(address) !== undefined;

/** The URL's host as written, without the brackets of an IPv6 literal, in lower case. */
const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, "").toLowerCase();

/** Whether `WEBHOOK_ALLOWED_HOSTS` lists the URL's host as written (never its addresses). */
function isAllowedHost(url: URL): boolean {
  return loadConfig().webhookAllowedHosts.includes(hostOf(url));
}

/** Where the built-in test receivers listen (docs/api.md#test-receiver), under `PUBLIC_URL`. */
const RECEIVER_PATH = "/api/webhook-receiver/";
const RECEIVER_PATHNAME = /^\/api\/webhook-receiver\/[A-Za-z0-9_-]{32}$/;

export const receiverUrl = (key: string) => `${loadConfig().publicUrl}${RECEIVER_PATH}${key}`;

/** Whether a URL is one of this product's own test receivers: a webhook may call it without `WEBHOOK_ALLOWED_HOSTS`. */
function isOwnReceiver(url: URL): boolean {
  return url.origin === new URL(loadConfig().publicUrl).origin && RECEIVER_PATHNAME.test(url.pathname);
}

/** Whether a webhook's stored URL calls the receiver at `receiver` (its query and userinfo aside). */
export function sameReceiver(stored: string, receiver: string): boolean {
  try {
    const url = new URL(stored);
    const own = new URL(receiver);
    return url.origin === own.origin && url.pathname === own.pathname;
  } catch {
    return false;
  }
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
 * {@link RefusedUrl} for a scheme other than http(s), port 0, a name that does not resolve, or any
 * address that is not public of a host `WEBHOOK_ALLOWED_HOSTS` does not list.
 */
export async function checkDestination(text: string): Promise<Destination> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new RefusedUrl("must be an http:// or https:// URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new RefusedUrl("must be an http:// or https:// URL");
  // Port 0 names no service: a connection to it fails or, on some systems, reaches an arbitrary one.
  if (url.port === "0") throw new RefusedUrl("must not use port 0");
  const host = hostOf(url);
  // The product's own test receiver is where a local trial points its first webhook.
  const allowed = isAllowedHost(url) || isOwnReceiver(url);
  const literal = isIP(host);
  const addresses = literal ? [{ address: host, family: literal as 4 | 6 }] : await resolve(host);
  if (!allowed) {
    for (const { address } of addresses) {
      const range = specialRange(address);
      if (range === undefined) continue;
      const is = address === host ? `${host} is` : `${host} resolves to ${address},`;
      throw new RefusedUrl(
        `must point to a public address (${is} ${range}); to call it anyway (a local trial, an internal receiver), list the host ${host} in WEBHOOK_ALLOWED_HOSTS, or try the built-in test receiver (Webhooks › Test receiver)`,
      );
    }
  }
  return { url, ...addresses[0] };
}

async function resolve(host: string): Promise<{ address: string; family: 4 | 6 }[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new RefusedUrl(`has a host that did not resolve within ${RESOLVE_TIMEOUT_MS / 1000} s`)),
      RESOLVE_TIMEOUT_MS,
    );
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
