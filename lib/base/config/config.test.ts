import { spawnSync } from "node:child_process";
import { availableParallelism } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, defaultReadWorkers, loadConfig } from ".";

describe("loadConfig", () => {
  it("gives the documented defaults for an empty environment", () => {
    expect(loadConfig({})).toEqual({
      port: 3000,
      mongodbUri: undefined,
      dataDir: path.resolve(".data"),
      authSecret: undefined,
      adminEmail: "admin@example.com",
      adminPassword: undefined,
      smtpUrl: undefined,
      rateLimitPerMinute: 600,
      companyRateLimitPerMinute: 3000,
      publicUrl: "http://localhost:3000",
      logLevel: "info",
      databaseTimeoutMs: 30_000,
      webConcurrency: availableParallelism(),
      readWorkers: 0,
      trustProxy: { kind: "hops", hops: 0 },
      webhookAllowedHosts: [],
      webhookRetryBaseMs: 60_000,
      webhookDisableAfterDays: 3,
      auditRetentionDays: 365,
      dbCommandMetrics: true,
    });
  });

  it("treats empty strings as unset", () => {
    const config = loadConfig({ PORT: "", MONGODB_URI: "", LOG_LEVEL: "" });
    expect(config.port).toBe(3000);
    expect(config.mongodbUri).toBeUndefined();
    expect(config.logLevel).toBe("info");
  });

  it("reads every variable", () => {
    const config = loadConfig({
      PORT: "8080",
      MONGODB_URI: "mongodb://db.example:27017/app",
      DATA_DIR: "/var/lib/app",
      AUTH_SECRET: "x".repeat(32),
      ADMIN_EMAIL: "Root@Example.com",
      ADMIN_PASSWORD: "secret",
      SMTP_URL: "smtp://mail.example:25",
      PUBLIC_URL: "https://Users.Example.com:8443/",
      RATE_LIMIT_PER_MINUTE: "60",
      RATE_LIMIT_COMPANY_PER_MINUTE: "100",
      LOG_LEVEL: "debug",
      READ_WORKERS: "3",
      DATABASE_TIMEOUT_MS: "5000",
      WEBHOOK_ALLOWED_HOSTS: " 127.0.0.1, Hooks.Internal ,[::1]",
      WEBHOOK_RETRY_BASE_MS: "500",
      WEBHOOK_DISABLE_AFTER_DAYS: "0.5",
      AUDIT_RETENTION_DAYS: "30",
      DB_COMMAND_METRICS: "false",
    });
    expect(config).toMatchObject({
      webhookAllowedHosts: ["127.0.0.1", "hooks.internal", "::1"],
      webhookRetryBaseMs: 500,
      webhookDisableAfterDays: 0.5,
      auditRetentionDays: 30,
      dbCommandMetrics: false,
      port: 8080,
      mongodbUri: "mongodb://db.example:27017/app",
      dataDir: "/var/lib/app",
      adminEmail: "root@example.com",
      smtpUrl: "smtp://mail.example:25",
      rateLimitPerMinute: 60,
      companyRateLimitPerMinute: 100,
      publicUrl: "https://users.example.com:8443",
      logLevel: "debug",
      readWorkers: 3,
      databaseTimeoutMs: 5000,
    });
  });

  it("names every bad variable and its value", () => {
    let error: unknown;
    try {
      loadConfig({
        PORT: "http",
        MONGODB_URI: "localhost",
        RATE_LIMIT_PER_MINUTE: "-1",
        READ_WORKERS: "all",
        DATABASE_TIMEOUT_MS: "50",
        WEBHOOK_RETRY_BASE_MS: "soon",
        WEBHOOK_DISABLE_AFTER_DAYS: "0",
        AUDIT_RETENTION_DAYS: "1.5",
        DB_COMMAND_METRICS: "no",
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toContain('PORT="http"');
    expect(message).toContain('MONGODB_URI="localhost"');
    expect(message).toContain('RATE_LIMIT_PER_MINUTE="-1"');
    expect(message).toContain('READ_WORKERS="all": must be a whole number from 0 to 16');
    expect(message).toContain('DATABASE_TIMEOUT_MS="50": must be a whole number of milliseconds from 100 to 600000');
    expect(message).toContain('WEBHOOK_RETRY_BASE_MS="soon"');
    expect(message).toContain('WEBHOOK_DISABLE_AFTER_DAYS="0": must be a number of days above 0, at most 365');
    expect(message).toContain('AUDIT_RETENTION_DAYS="1.5": must be a whole number of days from 1 to 36500');
    expect(message).toContain('DB_COMMAND_METRICS="no": must be true or false');
  });

  it("reads TRUST_PROXY as a hop count or a list of addresses, and names a bad value", () => {
    expect(loadConfig({ TRUST_PROXY: "2" }).trustProxy).toEqual({ kind: "hops", hops: 2 });
    expect(loadConfig({ TRUST_PROXY: " 10.0.0.0/8, ::1 ,loopback" }).trustProxy.kind).toBe("addresses");
    for (const bad of [
      "true",
      "33",
      "-1",
      "10.0.0.0/33",
      "10.0.0.1/8/2",
      "proxy.example",
      "10.0.0.1,",
      "::1/129",
      "1.5",
    ]) {
      expect(() => loadConfig({ TRUST_PROXY: bad }), bad).toThrow(
        `TRUST_PROXY=${JSON.stringify(bad)}: must be a number of proxies`,
      );
    }
  });

  it("reads PUBLIC_URL as an origin and refuses anything else, naming it", () => {
    expect(loadConfig({ PORT: "8080" }).publicUrl).toBe("http://localhost:8080");
    expect(loadConfig({ PUBLIC_URL: "http://10.0.0.5:3000" }).publicUrl).toBe("http://10.0.0.5:3000");
    expect(loadConfig({ PUBLIC_URL: "https://users.example.com:443" }).publicUrl).toBe("https://users.example.com");
    expect(loadConfig({ PUBLIC_URL: "http://[::1]:3000/" }).publicUrl).toBe("http://[::1]:3000");
    for (const bad of [
      "users.example.com",
      "ftp://users.example.com",
      "https://users.example.com/app",
      "https://users.example.com/?x=1",
      "https://users.example.com/#top",
      "https://admin:pw@users.example.com",
      "https://",
      "https://users.example.com//",
      "javascript:alert(1)",
    ]) {
      expect(() => loadConfig({ PUBLIC_URL: bad }), bad).toThrow(
        `PUBLIC_URL=${JSON.stringify(bad)}: must be an origin`,
      );
    }
  });

  it("refuses SMTP_URL without PUBLIC_URL: the e-mails' links would name no reachable host", () => {
    expect(() => loadConfig({ SMTP_URL: "smtp://mail.example:25" })).toThrow(/PUBLIC_URL must be set when SMTP_URL is/);
    expect(loadConfig({ SMTP_URL: "smtp://mail.example:25", PUBLIC_URL: "https://users.example.com" }).publicUrl).toBe(
      "https://users.example.com",
    );
  });

  it("npm start refuses to start with SMTP_URL and no PUBLIC_URL, naming the variable", () => {
    const root = path.resolve(__dirname, "../../..");
    const result = spawnSync(path.join(root, "node_modules", ".bin", "tsx"), ["lib/platform/cli/start.ts"], {
      cwd: root,
      env: {
        ...process.env,
        SMTP_URL: "smtp://mail.example:25",
        PUBLIC_URL: "",
        MONGODB_URI: "mongodb://127.0.0.1:1/never",
      },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("PUBLIC_URL must be set when SMTP_URL is");
  });

  it("sets the company-wide ceiling to five callers' budgets unless told", () => {
    expect(loadConfig({ RATE_LIMIT_PER_MINUTE: "100" }).companyRateLimitPerMinute).toBe(500);
    expect(
      loadConfig({ RATE_LIMIT_PER_MINUTE: "100", RATE_LIMIT_COMPANY_PER_MINUTE: "150" }).companyRateLimitPerMinute,
    ).toBe(150);
    expect(() => loadConfig({ RATE_LIMIT_COMPANY_PER_MINUTE: "0" })).toThrow(
      'RATE_LIMIT_COMPANY_PER_MINUTE="0": must be a whole number above 0',
    );
  });

  it("runs one server process per core unless WEB_CONCURRENCY says how many, from 1 to 64", () => {
    expect(loadConfig({ WEB_CONCURRENCY: "1" }).webConcurrency).toBe(1);
    expect(loadConfig({ WEB_CONCURRENCY: "64" }).webConcurrency).toBe(64);
    expect(loadConfig({ WEB_CONCURRENCY: "" }).webConcurrency).toBe(availableParallelism());
    for (const bad of ["0", "65", "two", "1.5"])
      expect(() => loadConfig({ WEB_CONCURRENCY: bad }), bad).toThrow(
        `WEB_CONCURRENCY=${JSON.stringify(bad)}: must be a whole number from 1 to 64`,
      );
  });

  it("starts a read worker only when a core is left that no server process takes", () => {
    expect(defaultReadWorkers(1)).toBe(0);
    expect(defaultReadWorkers(2)).toBe(1);
    expect(defaultReadWorkers(64)).toBe(1);
    // One server process per core (WEB_CONCURRENCY's default) leaves no core for a worker.
    expect(defaultReadWorkers(2, 2)).toBe(0);
    expect(defaultReadWorkers(4, 2)).toBe(1);
    expect(loadConfig({}).readWorkers).toBe(0);
    expect(loadConfig({ WEB_CONCURRENCY: "1" }).readWorkers).toBe(availableParallelism() > 1 ? 1 : 0);
    expect(loadConfig({ READ_WORKERS: "0" }).readWorkers).toBe(0);
  });

  it("honours a change of process.env between calls", () => {
    const previous = process.env.RATE_LIMIT_PER_MINUTE;
    try {
      process.env.RATE_LIMIT_PER_MINUTE = "5";
      expect(loadConfig().rateLimitPerMinute).toBe(5);
      expect(loadConfig()).toBe(loadConfig());
      process.env.RATE_LIMIT_PER_MINUTE = "7";
      expect(loadConfig().rateLimitPerMinute).toBe(7);
      process.env.RATE_LIMIT_PER_MINUTE = "seven";
      expect(() => loadConfig()).toThrow(ConfigError);
    } finally {
      if (previous === undefined) delete process.env.RATE_LIMIT_PER_MINUTE;
      else process.env.RATE_LIMIT_PER_MINUTE = previous;
    }
  });

  it("stops reading process.env in a server process once it is settled; an environment passed in is still read", () => {
    // In a process of its own: settling is for the whole process, as the server entry does it.
    const script = `
      const config = require("./lib/base/config/index.ts");
      process.env.RATE_LIMIT_PER_MINUTE = "5";
      const before = config.loadConfig().rateLimitPerMinute;
      config.settleConfig();
      process.env.RATE_LIMIT_PER_MINUTE = "7";
      const after = config.loadConfig().rateLimitPerMinute;
      const passed = config.loadConfig({ RATE_LIMIT_PER_MINUTE: "9" }).rateLimitPerMinute;
      console.log(JSON.stringify([before, after, passed]));`;
    const run = spawnSync(process.execPath, ["--import", "tsx", "-e", script], {
      cwd: path.resolve(__dirname, "../../.."),
      encoding: "utf8",
    });
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual([5, 5, 9]);
  });
});
