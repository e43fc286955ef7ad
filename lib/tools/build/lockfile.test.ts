import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * `npm ci` refuses a lock file that lacks any platform's optional binary, so a lock regenerated on
 * one machine with a partial registry mirror breaks every other machine (docs/testing.md).
 */
type LockEntry = { os?: string[]; cpu?: string[]; libc?: string[]; optionalDependencies?: Record<string, string> };
const lock = JSON.parse(readFileSync(path.join(__dirname, "../../../package-lock.json"), "utf8")) as {
  packages: Record<string, LockEntry>;
};

/** The platforms a newcomer may clone on: Linux (glibc and musl), macOS and Windows. */
const PLATFORMS = [
  { os: "linux", cpu: "x64", libc: "glibc" },
  { os: "linux", cpu: "arm64", libc: "glibc" },
  { os: "linux", cpu: "x64", libc: "musl" },
  { os: "linux", cpu: "arm64", libc: "musl" },
  { os: "darwin", cpu: "x64" },
  { os: "darwin", cpu: "arm64" },
  { os: "win32", cpu: "x64" },
] as const;

const NATIVE = ["next", "lightningcss", "@tailwindcss/oxide", "lmdb", "@node-rs/argon2"];

const fits = (entry: LockEntry, p: (typeof PLATFORMS)[number]) =>
  (!entry.os || entry.os.includes(p.os)) &&
  (!entry.cpu || entry.cpu.includes(p.cpu)) &&
  (!("libc" in p) || !entry.libc || entry.libc.includes(p.libc));

describe("package-lock.json", () => {
  it.each(NATIVE)("holds every optional binary that %s declares", (name) => {
    const declared = Object.keys(lock.packages[`node_modules/${name}`]?.optionalDependencies ?? {});
    expect(declared.length).toBeGreaterThan(0);
    const missing = declared.filter((dep) => !lock.packages[`node_modules/${dep}`]);
    expect(missing).toEqual([]);
  });

  it.each(NATIVE)("has a binary of %s for Linux, macOS and Windows", (name) => {
    const binaries = Object.keys(lock.packages[`node_modules/${name}`]?.optionalDependencies ?? {})
      .map((dep) => lock.packages[`node_modules/${dep}`])
      .filter((entry): entry is LockEntry => Boolean(entry?.os));
    const uncovered = PLATFORMS.filter((p) => !binaries.some((entry) => fits(entry, p)));
    expect(uncovered).toEqual([]);
  });
});
