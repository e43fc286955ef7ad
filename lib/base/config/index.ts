import { availableParallelism } from "node:os";
import path from "node:path";
import { z } from "zod";
import { parseTrustProxy, TRUST_PROXY_RULE, type TrustProxy } from "./trust-proxy";

/** An unset variable and one set to "" mean the same: use the default. */
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === "" ? undefined : value), schema.optional());

const withDefault = <T extends z.ZodType>(schema: T, fallback: z.input<T>) =>
  z.preprocess((value) => (value === "" || value === undefined ? fallback : value), schema);

const PORT_RANGE = "must be a port number from 1 to 65535";
const POSITIVE = "must be a whole number above 0";
const WORKERS = "must be a whole number from 0 to 16";
const PROCESSES = "must be a whole number from 1 to 64";
const TIMEOUT = "must be a whole number of milliseconds from 100 to 600000";
const RETRY_BASE = "must be a whole number of milliseconds from 10 to 86400000";
const DAYS = "must be a number of days above 0, at most 365";
const RETENTION = "must be a whole number of days from 1 to 36500";
const ON_OFF = "must be true or false";
const PUBLIC_URL_RULE =
  "must be an origin: http:// or https://, a host and an optional port, with no path, query, fragment or user name (https://users.example.com)";

/**
 * `PUBLIC_URL` as an origin (`https://users.example.com`), or `undefined` when it is not one: the
 * product is served at the root of its host (no path prefix), so a path is refused rather than
 * silently dropped. One trailing slash is allowed.
 */
function parsePublicUrl(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  if (url.username || url.password || url.search || url.hash || text.includes("?") || text.includes("#"))
    return undefined;
  if (url.pathname !== "/" || !/^https?:\/\/[^/]+\/?$/i.test(text)) return undefined;
  return url.origin;
}

/**
 * One read worker beside the thread that serves HTTP when a core is left that no server process
 * takes: with one server process per core (WEB_CONCURRENCY's default) a worker only competes with
 * the others for the cores (docs/benchmarks.md#whole-server-one-process-against-web_concurrency).
 */
export const defaultReadWorkers = (cores = availableParallelism(), serverProcesses = 1): number =>
  cores > serverProcesses ? 1 : 0;

const envSchema = z.object({
  PORT: withDefault(
    z.coerce.number({ error: PORT_RANGE }).int(PORT_RANGE).min(1, PORT_RANGE).max(65535, PORT_RANGE),
    "3000",
  ),
  MONGODB_URI: optional(z.string().regex(/^mongodb(\+srv)?:\/\/\S+$/, "must be a mongodb:// or mongodb+srv:// URI")),
  DATA_DIR: withDefault(z.string(), ".data"),
  AUTH_SECRET: optional(z.string().min(32, "must be at least 32 characters")),
  ADMIN_EMAIL: withDefault(z.email(), "admin@example.com"),
  ADMIN_PASSWORD: optional(z.string()),
  SMTP_URL: optional(z.string().regex(/^smtps?:\/\/\S+$/, "must be an smtp:// or smtps:// URL")),
  RATE_LIMIT_PER_MINUTE: withDefault(z.coerce.number({ error: POSITIVE }).int(POSITIVE).positive(POSITIVE), "600"),
  RATE_LIMIT_COMPANY_PER_MINUTE: optional(z.coerce.number({ error: POSITIVE }).int(POSITIVE).positive(POSITIVE)),
  PUBLIC_URL: optional(z.string().refine((value) => parsePublicUrl(value) !== undefined, PUBLIC_URL_RULE)),
  LOG_LEVEL: withDefault(z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]), "info"),
  DATABASE_TIMEOUT_MS: withDefault(
    z.coerce.number({ error: TIMEOUT }).int(TIMEOUT).min(100, TIMEOUT).max(600_000, TIMEOUT),
    "30000",
  ),
  WEB_CONCURRENCY: optional(z.coerce.number({ error: PROCESSES }).int(PROCESSES).min(1, PROCESSES).max(64, PROCESSES)),
  READ_WORKERS: optional(z.coerce.number({ error: WORKERS }).int(WORKERS).min(0, WORKERS).max(16, WORKERS)),
  TRUST_PROXY: optional(z.string().refine((value) => parseTrustProxy(value) !== undefined, TRUST_PROXY_RULE)),
  WEBHOOK_ALLOWED_HOSTS: withDefault(z.string(), ""),
  WEBHOOK_RETRY_BASE_MS: withDefault(
    z.coerce.number({ error: RETRY_BASE }).int(RETRY_BASE).min(10, RETRY_BASE).max(86_400_000, RETRY_BASE),
    "60000",
  ),
  WEBHOOK_DISABLE_AFTER_DAYS: withDefault(z.coerce.number({ error: DAYS }).positive(DAYS).max(365, DAYS), "3"),
  DB_COMMAND_METRICS: withDefault(z.enum(["true", "false"], { error: ON_OFF }), "true"),
  AUDIT_RETENTION_DAYS: withDefault(
    z.coerce.number({ error: RETENTION }).int(RETENTION).min(1, RETENTION).max(36_500, RETENTION),
    "365",
  ),
});

export interface Config {
  port: number;
  /** Unset: the embedded database under `dataDir`. */
  mongodbUri: string | undefined;
  /** Absolute; `DATA_DIR` resolved against the working directory. */
  dataDir: string;
  /** Unset: generated into `dataDir`. */
  authSecret: string | undefined;
  adminEmail: string;
  /** Unset: generated and printed once. */
  adminPassword: string | undefined;
  /** Unset: e-mails go to the outbox. */
  smtpUrl: string | undefined;
  rateLimitPerMinute: number;
  /** Every caller of one company together, per minute (docs/api.md#rate-limits); unset: 5 × `rateLimitPerMinute`. */
  companyRateLimitPerMinute: number;
  /**
   * The one origin the product is reached at (`https://users.example.com`): e-mail links, the
   * OpenAPI document's server and the cross-site check come from it, never from a request's
   * `Host` (docs/deployment.md#public_url). Unset: `http://localhost:PORT`.
   */
  publicUrl: string;
  logLevel: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
  /** How long a request waits on a database that stopped answering (docs/security.md#availability). */
  databaseTimeoutMs: number;
  /** Server processes `npm start` runs on the one port (lib/platform/cli/serve.ts); default: one per core. */
  webConcurrency: number;
  /** Worker threads that read and shape records off the HTTP thread (lib/kernel/db/workers.ts); 0: none. */
  readWorkers: number;
  /** Which `X-Forwarded-For` entries name the client (lib/platform/http/client-address.ts); unset: the socket's peer. */
  trustProxy: TrustProxy;
  /** Hosts, as written in a URL, that webhooks may call even when they resolve inside (docs/api.md#webhooks). */
  webhookAllowedHosts: string[];
  /** The delay before a webhook delivery's first retry; each later one is three times longer. */
  webhookRetryBaseMs: number;
  /** A webhook whose deliveries have all failed for this long is turned off. */
  webhookDisableAfterDays: number;
  /** How long audit entries are kept before the database removes them (docs/api.md#audit-log). */
  auditRetentionDays: number;
  /**
   * Whether the database connections time every command for `db_command_duration_seconds`
   * (the driver's command monitoring, which decodes each reply a second time: docs/deployment.md#metrics).
   */
  dbCommandMetrics: boolean;
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

const VARIABLES = Object.keys(envSchema.shape);
let last: { fingerprint: string; config: Config } | undefined;

/** Set on `globalThis` (each bundle of the server has its own copy of this module) by {@link settleConfig}. */
const SETTLED = Symbol.for("users-surveys-admin.config-settled");

/**
 * Called by the server process once it serves: its environment does not change after that, so
 * each copy of this module gives the configuration it last parsed, without reading the environment
 * again. Reading it took about 3% of a request's CPU on the HTTP thread, as several parts of every
 * request ask (docs/benchmarks.md#where-the-time-goes).
 */
export function settleConfig(): void {
  (globalThis as Record<symbol, unknown>)[SETTLED] = true;
}

/**
 * Reads the configuration (README.md#configuration) from the environment. A variable changed since the
 * last call is honoured (tests and CLIs set some before connecting); while none changed, the
 * answer parsed last is given again, as the rate limiter asks on every request. In a server
 * process, after {@link settleConfig}, the environment is not read again.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  if (env === process.env && last && (globalThis as Record<symbol, unknown>)[SETTLED]) return last.config;
  const fingerprint = [process.cwd(), ...VARIABLES.map((name) => env[name] ?? "\u0000")].join("\u0001");
  if (env === process.env && last?.fingerprint === fingerprint) return last.config;
  const config = parseConfig(env);
  if (env === process.env) last = { fingerprint, config };
  return config;
}

function parseConfig(env: Record<string, string | undefined>): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const name = issue.path.join(".");
      return `  ${name}=${JSON.stringify(env[name] ?? "")}: ${issue.message}`;
    });
    throw new ConfigError(`Invalid configuration in the environment:\n${problems.join("\n")}`);
  }
  const e = parsed.data;
  if (e.SMTP_URL !== undefined && e.PUBLIC_URL === undefined) {
    throw new ConfigError(
      "Invalid configuration in the environment:\n  PUBLIC_URL must be set when SMTP_URL is: the links in the e-mails sent (invitations) are made from it, e.g. PUBLIC_URL=https://users.example.com",
    );
  }
  return {
    port: e.PORT,
    mongodbUri: e.MONGODB_URI,
    // The ignore comment keeps Next's output tracing from copying the whole project for this path.
    dataDir: path.resolve(/*turbopackIgnore: true*/ process.cwd(), e.DATA_DIR),
    authSecret: e.AUTH_SECRET,
    adminEmail: e.ADMIN_EMAIL.toLowerCase(),
    adminPassword: e.ADMIN_PASSWORD,
    smtpUrl: e.SMTP_URL,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    companyRateLimitPerMinute: e.RATE_LIMIT_COMPANY_PER_MINUTE ?? 5 * e.RATE_LIMIT_PER_MINUTE,
    publicUrl: e.PUBLIC_URL !== undefined ? parsePublicUrl(e.PUBLIC_URL)! : `http://localhost:${e.PORT}`,
    logLevel: e.LOG_LEVEL,
    databaseTimeoutMs: e.DATABASE_TIMEOUT_MS,
    webConcurrency: e.WEB_CONCURRENCY ?? availableParallelism(),
    readWorkers:
      e.READ_WORKERS ?? defaultReadWorkers(availableParallelism(), e.WEB_CONCURRENCY ?? availableParallelism()),
    trustProxy: parseTrustProxy(e.TRUST_PROXY)!,
    webhookAllowedHosts: e.WEBHOOK_ALLOWED_HOSTS.split(",")
      .map((host) =>
        host
          .trim()
          .replace(/^\[|\]$/g, "")
          .toLowerCase(),
      )
      .filter(Boolean),
    webhookRetryBaseMs: e.WEBHOOK_RETRY_BASE_MS,
    webhookDisableAfterDays: e.WEBHOOK_DISABLE_AFTER_DAYS,
    auditRetentionDays: e.AUDIT_RETENTION_DAYS,
    dbCommandMetrics: e.DB_COMMAND_METRICS === "true",
  };
}
