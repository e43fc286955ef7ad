/**
 * The one user a TCP client authenticates as: generated on first start into the data directory
 * (readable by its owner only), kept across restarts so that a printed URI stays valid. A
 * process of the same owner reads the file to connect; another user of the machine cannot.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { PRIVATE_FILE_MODE } from "../storage/private-files";
import { saslPrepAscii } from "./scram";

export const CREDENTIALS_FILE = "credentials.json";
/** MongoDB keeps such users in the `admin` database; clients name it as `authSource`. */
const AUTH_DATABASE = "admin";
const DEFAULT_USER = "embedded";

export interface Credentials {
  user: string;
  password: string;
}

function credentialsPath(dir: string): string {
  return path.join(dir, CREDENTIALS_FILE);
}

/** The directory's credentials, generated (exclusively, mode 0600) when there are none yet. */
export function loadOrCreateCredentials(dir: string): Credentials {
  const file = credentialsPath(dir);
  const generated: Credentials = { user: DEFAULT_USER, password: randomBytes(24).toString("base64url") };
  try {
    fs.writeFileSync(file, `${JSON.stringify(generated, null, 2)}\n`, { flag: "wx", mode: PRIVATE_FILE_MODE });
    return generated;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  return parseCredentials(file, fs.readFileSync(file, "utf8"));
}

/** The directory's credentials, or undefined when there are none or they cannot be read. */
export function readCredentials(dir: string): Credentials | undefined {
  const file = credentialsPath(dir);
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  return parseCredentials(file, text);
}

function parseCredentials(file: string, text: string): Credentials {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${file} is not JSON; delete it to generate new credentials`);
  }
  const { user, password } = (parsed ?? {}) as Record<string, unknown>;
  if (typeof user !== "string" || !/^[\x21-\x7e]+$/.test(user) || typeof password !== "string") {
    throw new Error(
      `${file} must hold {"user": "...", "password": "..."} with a user name of printable ASCII characters; delete it to generate new credentials`,
    );
  }
  try {
    saslPrepAscii(password);
  } catch (error) {
    throw new Error(`${file}: ${(error as Error).message}`);
  }
  return { user, password };
}

/** A TCP URI that authenticates with `credentials`. */
export function credentialedUri(host: string, port: number, credentials: Credentials): string {
  const auth = `${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.password)}`;
  const hostPart = host.includes(":") ? `[${host}]` : host;
  return `mongodb://${auth}@${hostPart}:${port}/?authSource=${AUTH_DATABASE}&directConnection=true`;
}
