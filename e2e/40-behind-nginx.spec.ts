/**
 * The deployment of docs/deployment.md, set up for real: Debian's nginx ending TLS (a self-signed
 * certificate made here with openssl) in front of two production servers on one database, with
 * TRUST_PROXY and PUBLIC_URL. It checks sign-in in Chromium through the proxy (a Secure cookie,
 * HSTS), an invitation link carrying PUBLIC_URL whatever Host the request came with, a per-address
 * limit holding across both servers, and a restart of one server with no failed request.
 *
 * Each server is `npm start` (lib/platform/cli/start.ts) as a machine of its own would run it, with
 * MONGODB_URI naming the one database. Everything runs from a temporary directory on free ports,
 * nginx included (no root needed); it reuses the production build the run has made (e2e/serve.ts
 * builds it first).
 */
import { freePort } from "@/lib/tools/bench/server";
import { type Browser, expect, test } from "@playwright/test";
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import https from "node:https";
import { tmpdir } from "node:os";
import path from "node:path";

const root = path.resolve(__dirname, "..");
const bin = (name: string) => path.join(root, "node_modules", ".bin", name);
const NGINX = "/usr/sbin/nginx";
const ADMIN = { email: "proxy.admin@example.com", password: "proxy admin password" };

test.describe.configure({ mode: "serial", timeout: 180_000 });

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 90_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${what} did not happen within ${timeoutMs} ms`);
}

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once("exit", () => resolve()));

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** The certificate is our own self-signed one: this client trusts it, as the browser context below does. */
const agent = new https.Agent({ keepAlive: true, rejectUnauthorized: false });

/** One request to nginx over TLS, with the headers given (a `Host` of another name too). */
function request(
  port: number,
  method: string,
  pathname: string,
  options: { headers?: Record<string, string>; body?: unknown } = {},
): Promise<Answer> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const outgoing = https.request(
      {
        host: "127.0.0.1",
        port,
        method,
        path: pathname,
        agent,
        servername: "localhost",
        headers: {
          host: `localhost:${port}`,
          ...(body ? { "content-type": "application/json" } : {}),
          ...options.headers,
        },
      },
      (incoming) => {
        let text = "";
        incoming.setEncoding("utf8");
        incoming.on("data", (chunk: string) => (text += chunk));
        incoming.on("end", () => resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body: text }));
        incoming.on("error", reject);
      },
    );
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

class Deployment {
  readonly dir = mkdtempSync(path.join(tmpdir(), "e2e-proxy-"));
  readonly secret = randomBytes(48).toString("base64url");
  database?: ChildProcess;
  databaseUri = "";
  readonly servers = new Map<number, ChildProcess>();
  nginx?: ChildProcess;
  proxyPort = 0;
  serverPorts: number[] = [];

  get publicUrl(): string {
    return `https://localhost:${this.proxyPort}`;
  }

  async start(): Promise<void> {
    this.proxyPort = await freePort();
    this.serverPorts = [await freePort(), await freePort()];
    // One database for both servers, as `npm run db` serves it.
    this.database = spawn(bin("tsx"), ["lib/platform/cli/db.ts", "--port", "0", "--dir", path.join(this.dir, "db")], {
      cwd: root,
      stdio: ["ignore", "pipe", "inherit"],
    });
    this.databaseUri = await new Promise<string>((resolve, reject) => {
      let out = "";
      this.database!.stdout!.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        const line = out.split("\n").find((text) => text.startsWith("mongodb://"));
        if (line) resolve(line.trim());
      });
      this.database!.once("exit", (code) => reject(new Error(`npm run db exited with ${code}`)));
    });
    // One at a time: the first start creates the first admin (ADMIN_EMAIL, ADMIN_PASSWORD).
    for (const port of this.serverPorts) await this.startServer(port);
    this.startNginx();
    await until("nginx answering", async () => (await request(this.proxyPort, "GET", "/api/health")).status === 200);
  }

  /** `npm start` as a machine of its own would run it: its own DATA_DIR, the shared database and secret, one server process. */
  async startServer(port: number): Promise<void> {
    const dataDir = path.join(this.dir, `server-${port}`);
    mkdirSync(dataDir, { recursive: true });
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: "production",
      PORT: String(port),
      WEB_CONCURRENCY: "1",
      DATA_DIR: dataDir,
      MONGODB_URI: this.databaseUri,
      AUTH_SECRET: this.secret,
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      PUBLIC_URL: this.publicUrl,
      // nginx connects from this machine; the client address is the one nginx writes.
      TRUST_PROXY: "loopback",
      SMTP_URL: "",
      // The restart below sends a few thousand requests of one caller; the limit checked is sign-in's.
      RATE_LIMIT_PER_MINUTE: "1000000",
      LOG_LEVEL: "warn",
      NEXT_TELEMETRY_DISABLED: "1",
    };
    const server = spawn(process.execPath, ["--import", "tsx", "lib/platform/cli/start.ts"], {
      cwd: root,
      env,
      stdio: ["ignore", "ignore", "inherit"],
    });
    this.servers.set(port, server);
    await until(`the server on port ${port}`, async () => {
      if (server.exitCode !== null) throw new Error(`npm start on port ${port} exited with ${server.exitCode}`);
      return (await fetch(`http://127.0.0.1:${port}/api/health/ready`)).ok;
    });
  }

  /** SIGTERM, as a process manager sends it: the server drains, then every process of it ends. */
  async stopServer(port: number): Promise<number | null> {
    const server = this.servers.get(port)!;
    const code = new Promise<number | null>((resolve) => server.once("exit", (exitCode) => resolve(exitCode)));
    server.kill("SIGTERM");
    return code;
  }

  private startNginx(): void {
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        "2",
        "-subj",
        "/CN=localhost",
        "-addext",
        "subjectAltName=DNS:localhost,IP:127.0.0.1",
        "-keyout",
        path.join(this.dir, "key.pem"),
        "-out",
        path.join(this.dir, "cert.pem"),
      ],
      { stdio: "ignore" },
    );
    const temp = path.join(this.dir, "nginx-temp");
    mkdirSync(temp, { recursive: true });
    // docs/deployment.md's configuration, on this test's ports and paths.
    const config = `
${process.getuid?.() === 0 ? "user root root;" : ""}
worker_processes 1;
daemon off;
pid ${this.dir}/nginx.pid;
error_log ${this.dir}/nginx-error.log warn;
events { worker_connections 512; }
http {
  access_log off;
  client_body_temp_path ${temp}/body;
  proxy_temp_path ${temp}/proxy;
  fastcgi_temp_path ${temp}/fastcgi;
  uwsgi_temp_path ${temp}/uwsgi;
  scgi_temp_path ${temp}/scgi;
  client_max_body_size 101m;

  upstream app {
${this.serverPorts.map((port) => `    server 127.0.0.1:${port} max_fails=1 fail_timeout=2s;`).join("\n")}
    keepalive 16;
  }

  server {
    listen 127.0.0.1:${this.proxyPort} ssl;
    server_name localhost;
    ssl_certificate ${this.dir}/cert.pem;
    ssl_certificate_key ${this.dir}/key.pem;

    location / {
      proxy_pass http://app;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $remote_addr;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_next_upstream error timeout http_502 http_503;
      proxy_read_timeout 120s;
      # Only for this test: which server answered.
      add_header X-Upstream $upstream_addr always;
    }
  }
}
`;
    writeFileSync(path.join(this.dir, "nginx.conf"), config);
    this.nginx = spawn(
      NGINX,
      ["-p", this.dir, "-c", path.join(this.dir, "nginx.conf"), "-e", path.join(this.dir, "nginx-error.log")],
      { stdio: ["ignore", "inherit", "inherit"] },
    );
  }

  async stop(): Promise<void> {
    agent.destroy();
    this.nginx?.kill("SIGQUIT");
    for (const server of this.servers.values()) server.kill("SIGTERM");
    await Promise.all([...this.servers.values()].map(exited));
    if (this.nginx) await exited(this.nginx);
    this.database?.kill("SIGTERM");
    if (this.database) await exited(this.database);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

const deployment = new Deployment();
let adminToken = "";

test.beforeAll(async () => {
  test.setTimeout(180_000);
  expect(existsSync(NGINX), `${NGINX} (Debian's nginx package; .ci/run installs it)`).toBe(true);
  await deployment.start();
  const signedIn = await request(deployment.proxyPort, "POST", "/api/auth/login", { body: ADMIN });
  expect(signedIn.status, signedIn.body).toBe(200);
  adminToken = (JSON.parse(signedIn.body) as { accessToken: string }).accessToken;
});

test.afterAll(async () => {
  await deployment.stop();
});

async function signedInPage(browser: Browser, email: string, password: string) {
  const context = await browser.newContext({ baseURL: deployment.publicUrl, ignoreHTTPSErrors: true });
  const page = await context.newPage();
  const answer = await page.goto("/sign-in");
  expect(answer?.headers()["strict-transport-security"]).toMatch(/max-age=\d+/);
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL("**/users");
  return { context, page };
}

test("signs in with Chromium through nginx: a Secure session cookie, HSTS, the Origin of PUBLIC_URL", async ({
  browser,
}) => {
  const { context, page } = await signedInPage(browser, ADMIN.email, ADMIN.password);
  await expect(page.getByRole("heading", { level: 1, name: "Users" })).toBeVisible();
  const session = (await context.cookies()).find((cookie) => cookie.name === "session");
  expect(session).toMatchObject({ secure: true, httpOnly: true, sameSite: "Strict" });
  await context.close();

  // A client that says where it comes from only in Origin: PUBLIC_URL is accepted, any other refused.
  const fromPublicUrl = await request(deployment.proxyPort, "POST", "/api/auth/login", {
    body: ADMIN,
    headers: { origin: deployment.publicUrl },
  });
  expect(fromPublicUrl.status).toBe(200);
  const fromElsewhere = await request(deployment.proxyPort, "POST", "/api/auth/login", {
    body: ADMIN,
    headers: { origin: `https://127.0.0.1:${deployment.proxyPort}` },
  });
  expect(fromElsewhere.status).toBe(403);
  // The OpenAPI document names PUBLIC_URL as its server.
  const document = await request(deployment.proxyPort, "GET", "/v2/openapi.json", {
    headers: { host: "internal.example" },
  });
  expect((JSON.parse(document.body) as { servers: { url: string }[] }).servers[0].url).toBe(deployment.publicUrl);
});

test("an invitation sent through the proxy under another host name links to PUBLIC_URL, and the link works", async ({
  browser,
}) => {
  const email = `proxied.${Date.now()}@example.com`;
  const created = await request(deployment.proxyPort, "POST", "/v2/users?notifyEmail=true", {
    headers: {
      authorization: `Bearer ${adminToken}`,
      admin: "true",
      host: "app.internal:8080",
      "x-forwarded-host": "attacker.example",
    },
    body: { email, accessRoles: [await memberRoleId()] },
  });
  expect(created.status, created.body).toBe(201);
  const outbox = await request(deployment.proxyPort, "GET", `/v2/outbox?to=${encodeURIComponent(email)}`, {
    headers: { authorization: `Bearer ${adminToken}`, admin: "true" },
  });
  expect(outbox.status, outbox.body).toBe(200);
  const mail = (JSON.parse(outbox.body) as { data: { mails: { to: string; text: string }[] } }).data.mails.find(
    (item) => item.to === email,
  );
  const link = /https:\/\/\S+\/invitation\/[\w-]+/.exec(mail?.text ?? "")?.[0];
  expect(link).toMatch(new RegExp(`^${deployment.publicUrl.replace(/[.:/]/g, "\\$&")}/invitation/[\\w-]{43}$`));

  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  const page = await context.newPage();
  await page.goto(link!);
  await expect(page.getByRole("heading", { level: 1, name: "Set your password" })).toBeVisible();
  await expect(page.getByText(email)).toBeVisible();
  await context.close();
});

async function memberRoleId(): Promise<string> {
  const roles = await request(deployment.proxyPort, "GET", "/v2/access-roles?limit=100", {
    headers: { authorization: `Bearer ${adminToken}` },
  });
  expect(roles.status, roles.body).toBe(200);
  const list = (JSON.parse(roles.body) as { data: { accessRoles: { _id: string; isAdmin: boolean }[] } }).data
    .accessRoles;
  return list.find((role) => !role.isAdmin)!._id;
}

test("a per-address limit holds across both servers: 10 failed sign-ins, whichever server counted them", async () => {
  const email = `throttled.${Date.now()}@example.com`;
  const upstreams = new Set<string>();
  for (let i = 0; i < 10; i++) {
    const answer = await request(deployment.proxyPort, "POST", "/api/auth/login", {
      body: { email, password: `wrong ${i}` },
    });
    expect(answer.status).toBe(401);
    upstreams.add(String(answer.headers["x-upstream"]));
  }
  // nginx spread them over both servers; each server alone saw fewer than ten.
  expect(upstreams.size).toBe(2);
  for (let i = 0; i < 2; i++) {
    const refused = await request(deployment.proxyPort, "POST", "/api/auth/login", {
      body: { email, password: "wrong again" },
    });
    expect(refused.status).toBe(429);
    expect(refused.headers["retry-after"]).toBe(refused.headers["ratelimit-reset"]);
    expect(refused.headers["ratelimit-limit"]).toBe("10, 10;w=900");
  }
});

test("refused tokens are counted once for both servers: no more than 30 a minute get their 401", async () => {
  // A fixed 60-second window: start with at least 20 s of it left, so the 40 requests fall in one.
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 40_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 100));
  const statuses: number[] = [];
  const upstreams = new Set<string>();
  let limited: Answer | undefined;
  for (let i = 0; i < 40; i++) {
    const answer = await request(deployment.proxyPort, "GET", "/v2/users/me", {
      headers: { authorization: "Bearer not.a.token" },
    });
    statuses.push(answer.status);
    upstreams.add(String(answer.headers["x-upstream"]));
    if (answer.status === 429) limited ??= answer;
  }
  expect(upstreams.size).toBe(2);
  // Each server alone would have allowed 30: together they allowed 30, less at most what one
  // server had leased and not used (docs/security.md#rate-limits: (2 − 1) × (3 − 1)).
  const refused = statuses.filter((status) => status === 401).length;
  expect(refused).toBeLessThanOrEqual(30);
  expect(refused).toBeGreaterThanOrEqual(28);
  // Refused early only once 28 were counted; a server's last leased ones may come after the other's first 429.
  expect(statuses.slice(0, 28)).toEqual(Array(28).fill(401));
  expect(statuses.slice(-5)).toEqual(Array(5).fill(429));
  expect(limited!.headers["retry-after"]).toBe(limited!.headers["ratelimit-reset"]);
  expect(limited!.headers["ratelimit-limit"]).toBe("30, 30;w=60");
});

test("one server restarts under load and no request fails", async () => {
  const [restarted, other] = deployment.serverPorts;
  const failures: string[] = [];
  const servedBy = new Map<string, number>();
  let requests = 0;
  let running = true;
  const client = async () => {
    while (running) {
      try {
        const answer = await request(deployment.proxyPort, "GET", "/v2/users/me", {
          headers: { authorization: `Bearer ${adminToken}` },
        });
        requests += 1;
        if (answer.status !== 200) failures.push(`${answer.status} ${answer.body.slice(0, 200)}`);
        const upstream = String(answer.headers["x-upstream"]);
        servedBy.set(upstream, (servedBy.get(upstream) ?? 0) + 1);
      } catch (error) {
        failures.push(String(error));
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  const clients = Array.from({ length: 4 }, client);
  await until("requests flowing", async () => requests >= 20);
  // Drained and ended cleanly (docs/deployment.md#processes-restarts-and-health), while nginx sent the rest to the other.
  expect(await deployment.stopServer(restarted)).toBe(0);
  await expect(fetch(`http://127.0.0.1:${restarted}/api/health/live`)).rejects.toThrow();
  const duringRestart = requests;
  await deployment.startServer(restarted);
  // Back in nginx's rotation: the restarted server answers through the proxy again.
  const afterRestart = servedBy.get(`127.0.0.1:${restarted}`) ?? 0;
  await until(
    "the restarted server serving through nginx",
    async () => (servedBy.get(`127.0.0.1:${restarted}`) ?? 0) > afterRestart + 5,
    30_000,
  );
  running = false;
  await Promise.all(clients);
  expect(failures).toEqual([]);
  expect(requests).toBeGreaterThan(duringRestart);
  expect(servedBy.get(`127.0.0.1:${other}`) ?? 0).toBeGreaterThan(0);
});
