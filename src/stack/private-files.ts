/**
 * The data folder holds what other local users must not read: stored bodies, Temporal's database
 * (workflow inputs, crawl configs), the services' logs and the generated passwords. Everything the
 * stack creates there is its user's alone, whatever the umask.
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Folders: the owner may list and enter them, nobody else. */
export const PRIVATE_DIR_MODE = 0o700;
/** Files: the owner may read and write them, nobody else. */
export const PRIVATE_FILE_MODE = 0o600;
/** The umask the stack's services run with, so that what they create is private too. */
export const PRIVATE_UMASK = 0o077;

/** Creates `dir` (and any missing parent) private to its user; an existing folder is left as it is. */
export function makePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/**
 * Creates the data folder private to its user, or makes an existing one private: the folder loses
 * its group and other read and write bits (the search bit stays: Postgres run as another user
 * must pass through to its cluster), and each entry in it that this user owns becomes private
 * (0700 or 0600), which closes what a folder made before this held to other users.
 */
export function makeDataDirPrivate(dataDir: string, ownUid: number = process.getuid?.() ?? -1): void {
  makePrivateDir(dataDir);
  tighten(dataDir, ownUid, 0o066);
  for (const name of readdirSync(dataDir)) tighten(join(dataDir, name), ownUid, 0o077);
}

function tighten(path: string, ownUid: number, bits: number): void {
  const stats = lstatSync(path);
  if (stats.uid !== ownUid || (stats.mode & bits) === 0 || !(stats.isDirectory() || stats.isFile())) return;
  chmodSync(path, stats.mode & 0o7777 & ~bits);
}
