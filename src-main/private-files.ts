/**
 * The app's files hold a user's conversations and history, so nobody else on the machine may
 * read or plant them: folders the app makes are 0700, files it writes 0600, and a file it reads
 * back as its own (a spill) must be owned by this user and writable by nobody else. On Windows
 * (no uid, no POSIX modes) the per-user profile folder does this job and the checks pass.
 *
 * This module imports only Node's own modules: every room may read it.
 */
import type { Stats } from 'node:fs';
import { chmodSync, lstatSync, mkdirSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';

/** Mode of every folder the app makes: the owner alone may list, enter or add. */
export const PRIVATE_FOLDER_MODE = 0o700;
/** Mode of every file the app writes: the owner alone may read or change it. */
export const PRIVATE_FILE_MODE = 0o600;
/** The bits that let another account read, enter or change a file or folder. */
const OTHERS_BITS = 0o077;
/** The bits that let another account change a file, or add to a folder. */
const OTHERS_WRITE_BITS = 0o022;

/** This process's uid, or null where there are none (Windows). */
function ownUid(): number | null {
  return typeof process.getuid === 'function' ? process.getuid() : null;
}

/**
 * Makes every file and folder this process creates from now on private (umask 077), so the
 * history's WAL and SHM, graph caches and anything else written later are 0600/0700 without
 * each writer spelling a mode. A worker cannot change it (Node refuses), but it shares the
 * process's, so the main thread's call covers workers too.
 */
export function makeNewFilesPrivate(): void {
  if (ownUid() !== null && isMainThread) process.umask(OTHERS_BITS);
}

/**
 * Creates `dir` (and missing parents) as 0700, and narrows it to 0700 when an older version
 * left it open to others. A folder owned by someone else is left as it is (it cannot be
 * changed); the files written into it are still 0600.
 */
export function makePrivateFolder(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_FOLDER_MODE });
  const why = narrowToOwner(dir, PRIVATE_FOLDER_MODE);
  if (why !== null) throw new Error(why);
}

/**
 * Sets `file` to `mode` when it exists, is ours, and lets others in (a file an older version
 * wrote 0644). A missing file is fine: it is created private later. Never throws: returns why
 * it could not (a read-only disk), for the caller to tell.
 */
export function narrowToOwner(file: string, mode: number = PRIVATE_FILE_MODE): string | null {
  const uid = ownUid();
  if (uid === null) return null;
  try {
    const stats = lstatSync(file);
    if (stats.isSymbolicLink() || stats.uid !== uid || (stats.mode & OTHERS_BITS) === 0) return null;
    chmodSync(file, mode);
    return null;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Not there yet: whoever creates it creates it private.
    return code === 'ENOENT' || code === 'ENOTDIR'
      ? null
      : `cannot make ${file} private (${(error as Error).message})`;
  }
}

/**
 * Why `file` may not be trusted as something this app wrote, or null when it may: it must be a
 * plain file (not a link), owned by this user, that nobody else can change.
 */
export function whyNotOwnFile(file: string): string | null {
  const stats = lstatSync(file);
  if (!stats.isFile()) return 'it is not a plain file (a link or a folder)';
  return whyNotOwn(stats);
}

/**
 * The private per-user folder `dir` (in a folder every account shares, such as the temp
 * folder): created 0700 when missing; refused (the reason is returned) when it is a link, is
 * owned by another account, or lets others in: anyone could have planted files there.
 */
export function privateSharedFolder(dir: string): { dir: string } | { error: string } {
  try {
    mkdirSync(dir, { mode: PRIVATE_FOLDER_MODE });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return { error: (error as Error).message };
  }
  const stats = lstatSync(dir);
  if (!stats.isDirectory()) return { error: 'it is not a folder (a link or a file)' };
  const why = whyNotOwn(stats) ?? ((stats.mode & OTHERS_BITS) !== 0 ? 'others may enter it' : null);
  return why === null ? { dir } : { error: `it is not this user's private folder: ${why}` };
}

function whyNotOwn(stats: Stats): string | null {
  const uid = ownUid();
  if (uid === null) return null;
  if (stats.uid !== uid) return `it belongs to another account (uid ${stats.uid})`;
  if ((stats.mode & OTHERS_WRITE_BITS) !== 0) return 'other accounts may change it';
  return null;
}
