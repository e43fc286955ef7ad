/**
 * The `TRUST_PROXY` setting: how many `X-Forwarded-For` entries came from proxies of our own, or
 * which addresses are ours (docs/security.md, "What TRUST_PROXY means"). lib/platform/http/client-address.ts
 * applies it to each request.
 */
import { BlockList, isIP } from "node:net";

export type TrustProxy =
  /** The client is the peer: `hops` proxies in front (0: none), each appending one entry. */
  | { kind: "hops"; hops: number }
  /** The client is the last entry from the right that is not one of these addresses. */
  | { kind: "addresses"; list: BlockList };

export const NO_PROXY: TrustProxy = { kind: "hops", hops: 0 };

const MAX_HOPS = 32;
export const TRUST_PROXY_RULE = `must be a number of proxies from 0 to ${MAX_HOPS}, or a comma-separated list of proxy addresses and CIDR ranges (or "loopback")`;

/** `TRUST_PROXY` → the rule; a bad value → `undefined` (config.ts names the variable). */
export function parseTrustProxy(value: string | undefined): TrustProxy | undefined {
  const text = value?.trim() ?? "";
  if (text === "") return NO_PROXY;
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    return hops <= MAX_HOPS ? { kind: "hops", hops } : undefined;
  }
  const list = new BlockList();
  for (const item of text.split(",").map((part) => part.trim())) {
    if (item === "loopback") {
      list.addSubnet("127.0.0.0", 8, "ipv4");
      list.addSubnet("::1", 128, "ipv6");
      continue;
    }
    const [address, prefix, extra] = item.split("/");
    const family = isIP(address);
    if (family === 0 || extra !== undefined) return undefined;
    const type = family === 4 ? "ipv4" : "ipv6";
    if (prefix === undefined) {
      list.addAddress(address, type);
    } else {
      const bits = /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN;
      if (!(bits <= (family === 4 ? 32 : 128))) return undefined;
      list.addSubnet(address, bits, type);
    }
  }
  return { kind: "addresses", list };
}
