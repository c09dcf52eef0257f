import { chmodSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { SystemUser } from './system-user.js';

/**
 * Lets `user` reach `dir`: run as root, Postgres runs as the `postgres` user, which must be able to
 * traverse every folder above its cluster. A folder made by `mktemp -d` (0700, owned by root) is
 * not, and a root user (every container) should not have to chmod it. Each folder above `dir` that
 * we own and that `user` cannot search gets the search bit for others (o+x: enter, not list).
 * Returns the folders changed, for the log.
 */
export function makeSearchableBy(dir: string, user: SystemUser, ownUid: number = process.getuid?.() ?? -1): string[] {
  const changed: string[] = [];
  for (let folder = dirname(resolve(dir)); ; folder = dirname(folder)) {
    const stats = statSync(folder);
    const searchable = stats.uid === user.uid ? (stats.mode & 0o100) !== 0 : stats.gid === user.gid ? (stats.mode & 0o010) !== 0 : (stats.mode & 0o001) !== 0;
    if (!searchable && stats.uid === ownUid) {
      chmodSync(folder, (stats.mode & 0o7777) | 0o001);
      changed.push(folder);
    }
    if (folder === dirname(folder)) return changed;
  }
}
