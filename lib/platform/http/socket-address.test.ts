import { NO_PROXY, parseTrustProxy } from "@/lib/base/config/trust-proxy";
import { once } from "node:events";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientAddress } from "./client-address";
import { installSocketAddress } from "./socket-address";

/** A Request of a Node request, as Next.js builds one: the headers, without the socket. */
const toRequest = (incoming: IncomingMessage) =>
  new Request(`http://localhost${incoming.url}`, {
    headers: Object.entries(incoming.headers).map(([name, value]): [string, string] => [name, String(value)]),
  });

describe("the socket's address over real HTTP", () => {
  const server = createServer((incoming, response) => {
    const request = toRequest(incoming);
    response.end(
      JSON.stringify({
        direct: clientAddress(request, NO_PROXY),
        behindOne: clientAddress(request, parseTrustProxy("1")!),
      }),
    );
  });
  let url: string;

  beforeAll(async () => {
    installSocketAddress();
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => server.close());

  it("is the client's address whatever X-Forwarded-For the client sends", async () => {
    const sent: Record<string, string>[] = [
      {},
      { "x-forwarded-for": "6.6.6.6" },
      { "x-forwarded-for": "6.6.6.6, 7.7.7.7", "x-socket-address-stamp": "guess" },
    ];
    for (const headers of sent) {
      const answer = await (await fetch(url, { headers })).json();
      expect(answer.direct).toBe("127.0.0.1");
    }
    // Behind one proxy, the entry the proxy appended (here the client's own) is the client.
    expect((await (await fetch(url, { headers: { "x-forwarded-for": "198.51.100.7" } })).json()).behindOne).toBe(
      "198.51.100.7",
    );
  });

  it("is not believed from a request that did not pass through the server's appending", () => {
    const forged = new Request("http://localhost/", { headers: { "x-forwarded-for": "6.6.6.6" } });
    expect(clientAddress(forged, NO_PROXY)).toBe("unverified");
  });
});
