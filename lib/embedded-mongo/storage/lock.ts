/**
 * The lock file of a data directory (`mongod.lock`): which process serves it, on which port and
 * socket. One process takes it with an exclusive create; a lock left by a dead process is removed
 * only under a short-lived breaker file, after reading it again, so that two processes starting on
 * a directory left by a crash cannot both remove the stale lock, each take it, and both serve.
 */
import fs from "node:fs";
import path from "node:path";
import { PRIVATE_FILE_MODE } from "./private-files";

export interface LockInfo {
  pid: number;
  port: number;
  host: string;
  socket?: string;
  /** Whether its TCP port lets the directory owner's own sockets in without a password. */
  peerTrust?: boolean;
  /** When the owner started, as `processStart` reads it: a later process given the same pid is not the owner. */
  started?: string;
}

export const LOCK_FILE = "mongod.lock";
const BREAKER_FILE = "mongod.lock.break";
/** A breaker older than this was left by a process that died in the few microseconds it holds one. */
const STALE_BREAKER_MS = 5_000;
/** A lock file still unreadable after this was left half made by a crash. */
const UNREADABLE_LOCK_MS = 1_000;

function lockPath(dir: string): string {
  return path.join(dir, LOCK_FILE);
}

export function readLock(dir: string): LockInfo | undefined {
  try {
    return JSON.parse(fs.readFileSync(lockPath(dir), "utf8")) as LockInfo;
  } catch {
    return undefined;
  }
}

/**
 * When process `pid` started, on Linux (the boot's id and the start time in clock ticks since
 * boot); undefined where /proc does not tell.
 */
export function processStart(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces and parentheses: fields are counted after its end.
    const starttime = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
    const boot = fs.readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    return starttime ? `${boot}:${starttime}` : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the lock's owner still runs. A pid alone is not enough after a crash: once the machine
 * or container restarts, the dead owner's pid is often given to another process (even to this
 * one), which must not keep the directory locked.
 */
export function alive(owner: LockInfo): boolean {
  try {
    process.kill(owner.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  const started = owner.started === undefined ? undefined : processStart(owner.pid);
  return started === undefined || started === owner.started;
}

/** Replaces this process's lock file in one step, so that another process never reads it half written. */
export function writeLock(dir: string, lock: LockInfo): void {
  const temporary = `${lockPath(dir)}.${process.pid}`;
  fs.writeFileSync(temporary, JSON.stringify(lock), { mode: PRIVATE_FILE_MODE });
  fs.renameSync(temporary, lockPath(dir));
}

/** The lock of the live process that serves `dir`, if any (a lock left by a dead one is none). */
export function liveOwner(dir: string): LockInfo | undefined {
  const owner = readLock(dir);
  return owner && alive(owner) ? owner : undefined;
}

/** The lock file as it stands: its text, and its owner when it names a live process. */
function lockState(dir: string): { text: string; owner?: LockInfo; ageMs: number } | undefined {
  try {
    const text = fs.readFileSync(lockPath(dir), "utf8");
    const ageMs = Date.now() - fs.statSync(lockPath(dir)).mtimeMs;
    try {
      return { text, owner: JSON.parse(text) as LockInfo, ageMs };
    } catch {
      return { text, ageMs };
    }
  } catch {
    return undefined;
  }
}

/**
 * Whether a lock file is left over: its owner is dead, or it has stayed unreadable (a crash
 * between creating it and writing it) for longer than writing it takes.
 */
function leftOver(state: { owner?: LockInfo; ageMs: number }): boolean {
  return state.owner ? !alive(state.owner) : state.ageMs > UNREADABLE_LOCK_MS;
}

/**
 * Removes the lock file whose text was `stale`, unless another process has replaced it since:
 * under the breaker, which one process at a time holds, the file is read again and removed only
 * if it is still that left-over lock.
 */
function removeStaleLock(dir: string, stale: string): void {
  const breaker = path.join(dir, BREAKER_FILE);
  try {
    fs.writeFileSync(breaker, String(process.pid), { flag: "wx", mode: PRIVATE_FILE_MODE });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    try {
      if (Date.now() - fs.statSync(breaker).mtimeMs > STALE_BREAKER_MS) fs.rmSync(breaker, { force: true });
    } catch {
      // Released meanwhile.
    }
    return;
  }
  try {
    const now = lockState(dir);
    if (now && now.text === stale && leftOver(now)) fs.rmSync(lockPath(dir), { force: true });
  } finally {
    fs.rmSync(breaker, { force: true });
  }
}

/** Takes the lock file, or returns the live owner's lock when another process holds it. */
export function acquireLock(dir: string, host: string): LockInfo | undefined {
  const deadline = Date.now() + STALE_BREAKER_MS * 2;
  while (Date.now() < deadline) {
    try {
      fs.writeFileSync(
        lockPath(dir),
        JSON.stringify({ pid: process.pid, port: 0, host, started: processStart(process.pid) }),
        { flag: "wx", mode: PRIVATE_FILE_MODE },
      );
      return undefined;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const state = lockState(dir);
      if (state?.owner && alive(state.owner)) return state.owner;
      if (state && leftOver(state)) removeStaleLock(dir, state.text);
    }
  }
  throw new Error(`cannot take the lock file ${lockPath(dir)}`);
}

/** Removes the lock file when this process holds it. */
export function releaseLock(dir: string): void {
  if (readLock(dir)?.pid === process.pid) fs.rmSync(lockPath(dir), { force: true });
}
