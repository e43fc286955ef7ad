/**
 * The data directory holds password hashes, sessions and the database's own credentials: it is
 * readable by its owner only. Directories are made (or tightened to) 0700 and files 0600, so that
 * a directory created under a permissive umask, or by an older version, is closed at start.
 */
import fs from "node:fs";

const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Creates `dir` (and missing parents) and restricts it to its owner. */
export function privateDirectory(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  // A shared directory such as /tmp is never narrowed to one user: that would break the others.
  if (fs.statSync(dir).mode & 0o1000)
    throw new Error(`${dir} is a shared directory (sticky bit): give the data a directory of its own`);
  restrict(dir, PRIVATE_DIR_MODE);
}

/** Restricts each of `files` that exists to its owner; missing ones are skipped. */
export function privateFiles(files: string[]): void {
  for (const file of files) {
    try {
      restrict(file, PRIVATE_FILE_MODE);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
}

function restrict(target: string, mode: number): void {
  if ((fs.statSync(target).mode & 0o777) === mode) return;
  try {
    fs.chmodSync(target, mode);
  } catch (error) {
    throw new Error(`cannot restrict ${target} to mode ${mode.toString(8)}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}
