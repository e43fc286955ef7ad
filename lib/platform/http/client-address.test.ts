import { parseTrustProxy } from "@/lib/base/config/trust-proxy";
import { describe, expect, it } from "vitest";
import { addressKey, clientAddress } from "./client-address";

const from = (forwardedFor: string | undefined, trustProxy?: string) =>
  clientAddress(
    new Request("http://localhost/", {
      headers: forwardedFor === undefined ? {} : { "x-forwarded-for": forwardedFor },
    }),
    parseTrustProxy(trustProxy)!,
  );

describe("clientAddress", () => {
  it("without TRUST_PROXY is the last entry, the one the server appended from the socket", () => {
    expect(from("203.0.113.9")).toBe("203.0.113.9");
    // Whatever the client wrote itself comes before the socket's address and is ignored.
    expect(from("6.6.6.6, 7.7.7.7, 203.0.113.9")).toBe("203.0.113.9");
    expect(from("::ffff:127.0.0.1")).toBe("127.0.0.1");
    expect(from("2001:DB8::1")).toBe("2001:db8::1");
    expect(from(undefined)).toBe("unknown");
    expect(from(" , ")).toBe("unknown");
  });

  it("with a hop count skips that many proxies from the right", () => {
    expect(from("6.6.6.6, 198.51.100.7, 10.0.0.2", "1")).toBe("198.51.100.7");
    expect(from("6.6.6.6, 198.51.100.7, 10.0.0.3, 10.0.0.2", "2")).toBe("198.51.100.7");
    expect(from("6.6.6.6, 198.51.100.7, 10.0.0.2", "0")).toBe("10.0.0.2");
    // Fewer entries than proxies: the farthest one known.
    expect(from("10.0.0.2", "3")).toBe("10.0.0.2");
  });

  it("with an address list skips the trusted proxies from the right", () => {
    expect(from("6.6.6.6, 198.51.100.7, 10.1.2.3, 127.0.0.1", "10.0.0.0/8, loopback")).toBe("198.51.100.7");
    expect(from("6.6.6.6, 198.51.100.7, 192.0.2.1", "192.0.2.1")).toBe("198.51.100.7");
    // A peer that is not a trusted proxy is the client, whatever it forwards.
    expect(from("198.51.100.7, 203.0.113.9", "10.0.0.0/8")).toBe("203.0.113.9");
    expect(from("fd00::1, 2001:db8::5, ::1", "loopback,fd00::/8")).toBe("2001:db8::5");
    expect(from("10.0.0.1, 10.0.0.2", "10.0.0.0/8")).toBe("10.0.0.1");
  });
});

describe("addressKey", () => {
  it("counts an IPv6 client by its /64 and an IPv4 client by its address", () => {
    expect(addressKey("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:db8:1:2:bbbb:cccc:dddd:eeee")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:db8::7")).toBe("2001:db8:0:0::/64");
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
    expect(addressKey("198.51.100.7")).toBe("198.51.100.7");
    expect(addressKey("unknown")).toBe("unknown");
  });
});
