/**
 * The drain of a server process (lib/platform/http/drain.ts, docs/deployment.md#processes-restarts-and-health)
 * on real HTTP servers: in a real cluster whose primary lags, and alone.
 */
import { closeConnectionWhenDraining, drainServer } from "@/lib/platform/http/drain";
import { spawn } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";

const root = path.resolve(__dirname, "..", "..", "..");
const fixture = path.join(root, "lib", "platform", "testing", "drain-cluster-process.ts");

/**
 * One GET on a connection of its own: its status and body, or the error; a hang fails after
 * `hangMs`. `connected` is told once the connection is up (in the port's queue at least).
 */
function get(port: number, hangMs: number, connected = () => undefined as void): Promise<string> {
  return new Promise((resolve) => {
    const request = http.get({ host: "127.0.0.1", port, path: "/", agent: false }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () => resolve(`${response.statusCode} ${body}`));
    });
    request.on("socket", (socket) => socket.once("connect", connected));
    request.on("error", (error) => resolve(error.message));
    request.setTimeout(hangMs, () => request.destroy(new Error("no answer")));
  });
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

describe("drainServer in a cluster", () => {
  it("answers every connection the primary hands out while a worker drains, however late the primary reads its close", async () => {
    const primary = spawn(process.execPath, ["--import", "tsx", fixture], {
      cwd: root,
      stdio: ["pipe", "pipe", "inherit"],
    });
    cleanups.push(() => primary.kill("SIGTERM"));
    const events: Record<string, unknown>[] = [];
    let notify = () => undefined as void;
    createInterface({ input: primary.stdout! }).on("line", (line) => {
      events.push(JSON.parse(line) as Record<string, unknown>);
      notify();
    });
    const event = async (key: string) => {
      for (;;) {
        const found = events.find((each) => key in each);
        if (found) return found;
        await new Promise<void>((resolve) => (notify = resolve));
      }
    };

    const { ready: port, workers } = (await event("ready")) as { ready: number; workers: number[] };
    primary.stdin!.write("lag\n");
    await event("lagging");
    // Made while the primary stands still: it hands them out when it runs again, before it reads
    // the first worker's close, so one goes to that worker, which has by then drained (and, without
    // waiting for the primary, exited: its connection would never be answered).
    let connected = 0;
    const answers = Promise.all(
      Array.from({ length: 4 }, () =>
        get(port, 15_000, () => void (++connected === 4 && primary.stdin!.write("connected\n"))),
      ),
    );
    expect(await answers).toEqual(Array(4).fill(`200 ${workers[1]}`));
    expect(await event("resumed")).toEqual({ resumed: true, firstExited: false });
    expect(await event("exited")).toEqual({ exited: workers[0], code: 0 });
  }, 60_000);
});

describe("drainServer alone", () => {
  async function serve(handler: http.RequestListener, draining: () => boolean) {
    const server = http.createServer((request, response) => {
      closeConnectionWhenDraining(response, draining);
      handler(request, response);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => server.closeAllConnections());
    return { server, port: (server.address() as AddressInfo).port };
  }

  it("lets a request in flight end, its keep-alive connection told to close, then resolves", async () => {
    let draining = false;
    let release = () => undefined as void;
    const { server, port } = await serve(
      (_request, response) => {
        release = () => response.end("done");
      },
      () => draining,
    );
    const agent = new http.Agent({ keepAlive: true });
    cleanups.push(() => agent.destroy());
    const answer = new Promise<{ status?: number; connection?: string; body: string }>((resolve, reject) => {
      http
        .get({ host: "127.0.0.1", port, path: "/", agent }, (response) => {
          let body = "";
          response.setEncoding("utf8");
          response.on("data", (chunk: string) => (body += chunk));
          response.on("end", () =>
            resolve({ status: response.statusCode, connection: response.headers.connection, body }),
          );
        })
        .on("error", reject);
    });
    await new Promise((resolve) => server.once("request", resolve));
    draining = true;
    let drained = false;
    const drain = drainServer(server).then(() => (drained = true));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(drained).toBe(false);
    release();
    expect(await answer).toEqual({ status: 200, connection: "close", body: "done" });
    await drain;
    expect(server.listening).toBe(false);
  });

  it("cuts the connections still open after its bound", async () => {
    const { server, port } = await serve(
      () => undefined,
      () => true,
    );
    const answer = get(port, 15_000);
    await new Promise((resolve) => server.once("request", resolve));
    let cut = false;
    await drainServer(server, { boundMs: 300, onCut: () => (cut = true) });
    expect(cut).toBe(true);
    expect(await answer).toBe("socket hang up");
  });
});
