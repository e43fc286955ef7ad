import { afterEach, describe, expect, it } from "vitest";
import { checkDestination, isInternalAddress, RefusedUrl } from "./url-guard";

describe("the webhook URL guard", () => {
  afterEach(() => {
    delete process.env.WEBHOOK_ALLOWED_HOSTS;
  });

  it("tells internal addresses, IPv4 and IPv6 in every form, from public ones", () => {
    const internal = ["127.0.0.1", "127.255.0.9", "10.0.0.1", "172.16.5.4", "172.31.255.255", "192.168.0.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "224.0.0.1", "255.255.255.255",
      "::", "::1", "fe80::1", "fe80::1%eth0", "fc00::1", "fd12:3456::1", "ff02::1", "::ffff:127.0.0.1", "::ffff:7f00:1", "::ffff:10.0.0.1", "64:ff9b::a00:1", "2002:c0a8:101::1", "::127.0.0.1"];
    const external = ["93.184.215.14", "8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1"];
    for (const address of internal) expect(isInternalAddress(address), address).toBe(true);
    for (const address of external) expect(isInternalAddress(address), address).toBe(false);
    expect(isInternalAddress("not an address")).toBe(true);
  });

  it("answers the address it checked, to connect to, and lets only listed hosts as written inside", async () => {
    expect(await checkDestination("https://93.184.215.14:8443/x")).toMatchObject({ address: "93.184.215.14", family: 4 });
    await expect(checkDestination("http://localhost/")).rejects.toThrow(RefusedUrl);
    await expect(checkDestination("http://127.0.0.1/")).rejects.toThrow(/loopback, private or link-local/);
    await expect(checkDestination("gopher://93.184.215.14/")).rejects.toThrow(/http/);
    process.env.WEBHOOK_ALLOWED_HOSTS = "127.0.0.1,[::1]";
    expect(await checkDestination("http://127.0.0.1:9/")).toMatchObject({ address: "127.0.0.1" });
    expect(await checkDestination("http://[::1]:9/")).toMatchObject({ address: "::1", family: 6 });
    // The list names hosts as written: localhost resolves to 127.0.0.1 but is not listed.
    await expect(checkDestination("http://localhost/")).rejects.toThrow(RefusedUrl);
  });
});
