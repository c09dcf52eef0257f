import { existsSync, readFileSync } from 'node:fs';
import { StackError } from './stack-error.js';

export interface SystemUser {
  name: string;
  uid: number;
  gid: number;
}

/** The passwd entry of a user (Node has no getpwnam); undefined when there is none. */
export function lookupSystemUser(name: string, passwdFile = '/etc/passwd'): SystemUser | undefined {
  let text: string;
  try {
    text = readFileSync(passwdFile, 'utf8');
  } catch {
    return undefined;
  }
  for (const line of text.split('\n')) {
    const [user, , uid, gid] = line.split(':');
    if (user === name && uid !== undefined && gid !== undefined) return { name, uid: Number(uid), gid: Number(gid) };
  }
  return undefined;
}

export function isRoot(): boolean {
  return process.getuid?.() === 0;
}

/** The user Postgres must run as: `postgres` when we are root (initdb refuses root), else ourselves. */
export function postgresRunAs(): SystemUser | undefined {
  if (!isRoot()) return undefined;
  const user = lookupSystemUser('postgres');
  if (user === undefined) {
    throw new StackError("Running as root, Postgres must run as the 'postgres' user, which does not exist", {
      code: 'STACK_TOOL_MISSING',
      service: 'tools',
      hint: "Install Debian's postgresql package (it creates the user): apt-get install -y postgresql, or run as a non-root user.",
    });
  }
  return user;
}

const runuserCandidates = ['/usr/sbin/runuser', '/sbin/runuser', '/usr/bin/runuser'];
const setprivCandidates = ['/usr/bin/setpriv', '/bin/setpriv'];

/** argv prefix that runs the rest of the command as user (runuser, else setpriv; both util-linux). */
export function runAsUserPrefix(user: SystemUser): string[] {
  const runuser = runuserCandidates.find((path) => existsSync(path));
  if (runuser !== undefined) return [runuser, '-u', user.name, '--'];
  const setpriv = setprivCandidates.find((path) => existsSync(path));
  if (setpriv !== undefined) return [setpriv, `--reuid=${user.uid}`, `--regid=${user.gid}`, '--init-groups', '--'];
  throw new StackError(`Neither runuser nor setpriv was found to run Postgres as '${user.name}'`, {
    code: 'STACK_TOOL_MISSING',
    service: 'tools',
    hint: 'Install util-linux (apt-get install -y util-linux), or run as a non-root user.',
  });
}
