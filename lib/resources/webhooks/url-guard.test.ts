import { afterEach, describe, expect, it } from "vitest";
import { checkDestination, isInternalAddress, RefusedUrl, specialRange } from "./url-guard";

describe("the webhook URL guard", () => {
  afterEach(() => {
    delete process.env.WEBHOOK_ALLOWED_HOSTS;
  });

  it("refuses one address of every special-purpose range, naming the range", () => {
    const ranges: [string, string][] = [
      // IPv4
      ["0.0.0.0", "unspecified"],
      ["0.1.2.3", "unspecified"], // "this network" 0.0.0.0/8
      ["10.0.0.1", "private"],
      ["172.16.5.4", "private"],
      ["172.31.255.255", "private"],
      ["192.168.0.1", "private"],
      ["100.64.0.1", "carrier-grade NAT"],
      ["127.0.0.1", "loopback"],
      ["127.255.0.9", "loopback"],
      ["169.254.169.254", "link-local"], // cloud metadata
      ["192.0.0.8", "reserved or documentation"], // IETF protocol assignments 192.0.0.0/24
      ["192.0.2.1", "reserved or documentation"], // TEST-NET-1
      ["198.51.100.1", "reserved or documentation"], // TEST-NET-2
      ["203.0.113.1", "reserved or documentation"], // TEST-NET-3
      ["192.88.99.1", "reserved or documentation"], // 6to4 relay anycast
      ["198.18.0.1", "reserved or documentation"], // benchmarking 198.18.0.0/15
      ["224.0.0.1", "multicast"],
      ["239.255.255.250", "multicast"],
      ["240.0.0.1", "reserved or documentation"],
      ["255.255.255.255", "broadcast"],
      ["192.31.196.1", "AS112 anycast"],
      ["192.52.193.1", "AMT anycast"],
      // IPv6
      ["::", "unspecified"],
      ["::1", "loopback"],
      ["fe80::1", "link-local"],
      ["fe80::1%eth0", "link-local"],
      ["fec0::1", "site-local"],
      ["fc00::1", "unique local"],
      ["fd12:3456::1", "unique local"],
      ["ff02::1", "multicast"],
      ["::ffff:127.0.0.1", "IPv4-mapped"],
      ["::ffff:8.8.8.8", "IPv4-mapped"], // refused whole, whatever it carries
      ["::ffff:0:7f00:1", "SIIT IPv4-translated"], // ::ffff:0:127.0.0.1
      ["::ffff:0:8.8.8.8", "SIIT IPv4-translated"],
      ["64:ff9b::a00:1", "NAT64"], // 64:ff9b::/96, carrying 10.0.0.1
      ["64:ff9b::808:808", "NAT64"],
      ["64:ff9b:1::a00:1", "NAT64"], // local-use 64:ff9b:1::/48
      ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo"], // 2001::/32
      ["2002:c0a8:101::1", "6to4"], // 2002::/16, carrying 192.168.1.1
      ["2002:808:808::1", "6to4"],
      ["2001:2::1", "benchmarking"], // 2001:2::/48
      ["2001:db8::1", "reserved or documentation"], // documentation 2001:db8::/32
      ["3fff::1", "reserved or documentation"], // documentation 3fff::/20
      ["2001:10::1", "ORCHID"],
      ["2001:20::1", "ORCHID"],
      ["2001:3::1", "AMT anycast"],
      ["2001:4:112::1", "AS112 anycast"],
      ["100::1", "discard-only"], // 100::/64
      ["5f00::1", "segment routing"],
      ["::127.0.0.1", "outside the global unicast space 2000::/3"], // deprecated IPv4-compatible ::/96
      ["::2", "outside the global unicast space 2000::/3"],
      ["4000::1", "outside the global unicast space 2000::/3"],
      ["not an address", "not an IP address"],
      ["0x7f.1", "not an IP address"],
    ];
    for (const [address, range] of ranges) {
      expect(specialRange(address), address).toBe(range);
      expect(isInternalAddress(address), address).toBe(true);
    }
  });

  it("lets public unicast addresses through", () => {
    for (const address of [
      "93.184.215.14",
      "8.8.8.8",
      "1.1.1.1",
      "172.32.0.1",
      "100.128.0.1",
      "192.0.3.1",
      "2606:4700::1111",
      "2a00:1450:4001::200e",
      "2001:4860:4860::8888",
    ]) {
      expect(specialRange(address), address).toBeUndefined();
    }
  });

  it("answers the address it checked, to connect to, and lets only listed hosts as written inside", async () => {
    expect(await checkDestination("https://93.184.215.14:8443/x")).toMatchObject({
      address: "93.184.215.14",
      family: 4,
    });
    await expect(checkDestination("http://localhost/")).rejects.toThrow(RefusedUrl);
    // The refusal names the range and the setting that would let a local trial through.
    await expect(checkDestination("http://127.0.0.1/")).rejects.toThrow(
      "must point to a public address (127.0.0.1 is loopback); to call it anyway (a local trial, an internal receiver), list the host 127.0.0.1 in WEBHOOK_ALLOWED_HOSTS",
    );
    await expect(checkDestination("http://localhost/")).rejects.toThrow(
      /localhost resolves to (127\.0\.0\.1|::1), loopback\).*WEBHOOK_ALLOWED_HOSTS/,
    );
    await expect(checkDestination("http://[::ffff:0:a00:1]/")).rejects.toThrow(/SIIT/);
    await expect(checkDestination("http://[64:ff9b:1::a00:1]/")).rejects.toThrow(/NAT64/);
    await expect(checkDestination("http://[2001::1]/")).rejects.toThrow(/Teredo/);
    await expect(checkDestination("gopher://93.184.215.14/")).rejects.toThrow(/http/);
    process.env.WEBHOOK_ALLOWED_HOSTS = "127.0.0.1,[::1]";
    expect(await checkDestination("http://127.0.0.1:9/")).toMatchObject({ address: "127.0.0.1" });
    expect(await checkDestination("http://[::1]:9/")).toMatchObject({ address: "::1", family: 6 });
    // The list names hosts as written: localhost resolves to 127.0.0.1 but is not listed.
    await expect(checkDestination("http://localhost/")).rejects.toThrow(RefusedUrl);
  });

  it("refuses port 0, on a public address and on a listed host alike", async () => {
    await expect(checkDestination("https://93.184.215.14:0/x")).rejects.toThrow("must not use port 0");
    await expect(checkDestination("http://93.184.215.14:00/x")).rejects.toThrow("must not use port 0");
    process.env.WEBHOOK_ALLOWED_HOSTS = "127.0.0.1";
    await expect(checkDestination("http://127.0.0.1:0/")).rejects.toThrow("must not use port 0");
  });
});
