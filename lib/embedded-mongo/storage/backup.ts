/**
 * Backups of a data directory as one file, and their restore (`npm run db -- backup|restore`).
 *
 * A backup is LMDB's own copy of the environment (`mdb_env_copy2` with compaction), taken inside
 * one read transaction: it holds exactly the state of one committed write and nothing of a later
 * one, so it may be taken while another process serves the directory and writes to it. LMDB lets
 * several processes open one environment; this one only reads. The file is the `data.mdb` of that
 * copy; a restore opens it read-only as an environment of its own and copies it back the same way.
 *
 * Neither side leaves a half-written file under the name it was given: each writes into a
 * temporary directory beside its target and renames the finished file into place.
 */
import { open, type Database, type RootDatabase } from "lmdb";
import fs from "node:fs";
import path from "node:path";
import { acquireLock, liveOwner, releaseLock, type LockInfo } from "./lock";
import { PRIVATE_FILE_MODE, privateDirectory, privateFiles } from "./private-files";
import type { CollectionMeta } from "./store";

/** LMDB's data file and its lock file (reader table), as a directory environment names them. */
const DATA_FILE = "data.mdb";
const LMDB_LOCK_FILE = "lock.mdb";
/** Every LMDB file starts with a meta page whose header is followed by this magic number. */
const LMDB_MAGIC = 0xbeefc0de;
const LMDB_MAGIC_OFFSET = 24;

/** A failure the user can act on: printed as it is, without a stack trace. */
export class BackupError extends Error {
  override name = "BackupError";
}

export interface DatabaseSummary {
  /** Size of the file in bytes. */
  bytes: number;
  collections: number;
  documents: number;
}

export interface BackupResult extends DatabaseSummary {
  file: string;
  seconds: number;
}

export interface RestoreResult extends DatabaseSummary {
  dir: string;
  /** True when a database that was in the directory was replaced. */
  replaced: boolean;
  seconds: number;
}

/**
 * Writes a consistent copy of the database in `dir` to `file`, whether or not another process
 * serves `dir`. Refuses to replace an existing `file` unless `force`.
 */
export async function backupDatabase(
  dir: string,
  file: string,
  options: { force?: boolean } = {},
): Promise<BackupResult> {
  const started = performance.now();
  dir = path.resolve(dir);
  file = path.resolve(file);
  if (!isFile(path.join(dir, DATA_FILE))) {
    throw new BackupError(`There is no database in ${dir} (no ${DATA_FILE}): name its directory with --dir.`);
  }
  // Renamed into the database's own directory, the copy could take the place of its live files.
  if (sameDirectory(path.dirname(file), dir))
    throw new BackupError(`Write the backup outside the database directory ${dir}.`);
  const existing = statOrUndefined(file);
  if (existing?.isDirectory()) throw new BackupError(`${file} is a directory: name the backup file to write.`);
  if (existing && !options.force) throw new BackupError(`${file} already exists: add --force to replace it.`);

  fs.mkdirSync(path.dirname(file), { recursive: true });
  const stage = fs.mkdtempSync(path.join(path.dirname(file), `.${path.basename(file)}.partial-`));
  try {
    const env = openEnvironment(dir);
    try {
      // Opening may have created the reader table; it is as private as the rest of the directory.
      privateFiles([path.join(dir, LMDB_LOCK_FILE)]);
      await env.backup(stage, true);
    } finally {
      await env.close();
    }
    const copy = path.join(stage, DATA_FILE);
    fs.chmodSync(copy, PRIVATE_FILE_MODE);
    // Reading the copy back checks it opens, and counts what it holds.
    const summary = await summarizeDirectory(stage);
    fs.renameSync(copy, file);
    return { file, ...summary, seconds: (performance.now() - started) / 1000 };
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
}

/**
 * Brings the backup `file` back into `dir` (created, mode 0700, when missing). Refused while a
 * live process serves `dir`, and when `dir` is not empty unless `force`; with `force` only the
 * database file is replaced, so the directory's credentials stay as they were. The file is
 * checked to be a backup of this database before anything in `dir` changes.
 */
export async function restoreDatabase(
  file: string,
  dir: string,
  options: { force?: boolean } = {},
): Promise<RestoreResult> {
  const started = performance.now();
  file = path.resolve(file);
  dir = path.resolve(dir);
  if (!isFile(file)) throw new BackupError(`There is no backup file at ${file}.`);
  const owner = liveOwner(dir);
  if (owner) throw served(dir, owner);
  const target = statOrUndefined(dir);
  if (target && !target.isDirectory()) throw new BackupError(`${dir} is not a directory.`);
  const entries = target ? fs.readdirSync(dir) : [];
  const replaced = entries.includes(DATA_FILE);
  if (entries.length > 0 && !options.force) {
    throw new BackupError(
      replaced
        ? `${dir} already holds a database: add --force to replace it (its credentials are kept).`
        : `${dir} is not empty: add --force to restore into it anyway (only ${DATA_FILE} is written).`,
    );
  }

  checkMagic(file);
  let stage: string | undefined;
  try {
    // LMDB's own copy of the file rather than a file copy: it writes past the page cache, which
    // a multi-gigabyte copy would otherwise fill and wait on. Nothing is written before the file
    // opened as a database of this kind.
    const summary = await readBackup(file, async (env) => {
      fs.mkdirSync(path.dirname(dir), { recursive: true });
      stage = fs.mkdtempSync(path.join(path.dirname(dir), `.${path.basename(dir)}.restore-`));
      await env.backup(path.join(stage, DATA_FILE), false);
    });
    const copy = path.join(stage!, DATA_FILE);
    fs.chmodSync(copy, PRIVATE_FILE_MODE);

    privateDirectory(dir);
    // Held while the file is swapped, so that a server starting meanwhile waits or refuses.
    const racing = acquireLock(dir, "127.0.0.1");
    if (racing) throw served(dir, racing);
    try {
      fs.renameSync(copy, path.join(dir, DATA_FILE));
      // The reader table belonged to the replaced file; LMDB makes a new one at the next open.
      fs.rmSync(path.join(dir, LMDB_LOCK_FILE), { force: true });
    } finally {
      releaseLock(dir);
    }
    return { dir, ...summary, replaced, seconds: (performance.now() - started) / 1000 };
  } finally {
    if (stage) fs.rmSync(stage, { recursive: true, force: true });
  }
}

function served(dir: string, owner: LockInfo): BackupError {
  const where = owner.port > 0 ? ` on port ${owner.port}` : "";
  return new BackupError(
    `${dir} is served by process ${owner.pid}${where}: stop it before restoring into its directory.`,
  );
}

/** The environment of a directory, read-only: this process never writes to it. */
function openEnvironment(dir: string): RootDatabase {
  return open({ path: dir, noSubdir: false, maxDbs: 8, readOnly: true });
}

/** The backup file as an environment of its own, read-only (LMDB keeps its reader table beside it). */
async function readBackup(file: string, copyFrom: (env: RootDatabase) => Promise<void>): Promise<DatabaseSummary> {
  const readerTable = `${file}-lock`;
  const hadReaderTable = fs.existsSync(readerTable);
  try {
    let env: RootDatabase;
    let summary: DatabaseSummary;
    try {
      env = open({ path: file, noSubdir: true, maxDbs: 8, readOnly: true });
      summary = summarize(env, fs.statSync(file).size);
    } catch (error) {
      throw new BackupError(`${file} is not a backup of the embedded database: ${(error as Error).message}`, {
        cause: error,
      });
    }
    try {
      await copyFrom(env);
    } finally {
      await env.close();
    }
    return summary;
  } finally {
    if (!hadReaderTable) fs.rmSync(readerTable, { force: true });
  }
}

/** The database in `dir`, opened read-only and summarized. */
async function summarizeDirectory(dir: string): Promise<DatabaseSummary> {
  const env = openEnvironment(dir);
  try {
    return summarize(env, fs.statSync(path.join(dir, DATA_FILE)).size);
  } finally {
    await env.close();
  }
}

/**
 * Counts a database's collections and documents: LMDB keeps the entry count of each
 * sub-database, so this reads the catalog and no document.
 */
function summarize(env: RootDatabase, bytes: number): DatabaseSummary {
  // Read-only, LMDB answers a sub-database that is not there with nothing rather than an error.
  const meta = env.openDB<CollectionMeta>("meta", {}) as Database<CollectionMeta> | undefined;
  const docs = env.openDB("docs", { encoding: "binary" }) as Database | undefined;
  if (!meta || !docs) throw new Error("it has no collection catalog");
  let collections = 0;
  for (const { value } of meta.getRange({})) {
    if (typeof value?.db !== "string" || typeof value.name !== "string" || !Array.isArray(value.indexes)) {
      throw new Error("its catalog holds an entry that is not a collection");
    }
    collections++;
  }
  const documents = (docs.getStats() as { entryCount: number }).entryCount;
  return { bytes, collections, documents };
}

/** LMDB would take an empty or foreign file as a new database: the magic number says it is one. */
function checkMagic(file: string): void {
  const header = Buffer.alloc(LMDB_MAGIC_OFFSET + 4);
  const fd = fs.openSync(file, "r");
  let read: number;
  try {
    read = fs.readSync(fd, header, 0, header.length, 0);
  } finally {
    fs.closeSync(fd);
  }
  if (read < header.length || header.readUInt32LE(LMDB_MAGIC_OFFSET) !== LMDB_MAGIC) {
    throw new BackupError(`${file} is not a backup of the embedded database: it is not an LMDB file.`);
  }
}

function statOrUndefined(target: string): fs.Stats | undefined {
  try {
    return fs.statSync(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** Whether two paths name one directory, through symbolic links too. */
function sameDirectory(a: string, b: string): boolean {
  const real = (target: string) => {
    try {
      return fs.realpathSync(target);
    } catch {
      return target;
    }
  };
  return real(a) === real(b);
}

function isFile(target: string): boolean {
  return statOrUndefined(target)?.isFile() === true;
}
