// Who a terminal runs as and which shell it starts: /etc/passwd and /etc/shells, read at
// each open (they change while the agent runs). Every refusal is a sentence the operator
// sees in the term_error message.
import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface Account {
  name: string;
  uid: number;
  gid: number;
  home: string;
  shell: string;
}

export class TerminalRefused extends Error {}

export interface AccountFiles {
  passwd: string;
  shells: string;
}

export const SYSTEM_FILES: AccountFiles = { passwd: '/etc/passwd', shells: '/etc/shells' };

function readLines(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n');
  } catch {
    return [];
  }
}

/** The /etc/passwd entry of a user name, or undefined. */
export function lookupUser(name: string, file = SYSTEM_FILES.passwd): Account | undefined {
  for (const line of readLines(file)) {
    const f = line.split(':');
    if (f.length < 7 || f[0] !== name) continue;
    const uid = Number(f[2]);
    const gid = Number(f[3]);
    if (!Number.isInteger(uid) || !Number.isInteger(gid)) return undefined;
    return { name, uid, gid, home: f[5]!, shell: f[6]! };
  }
  return undefined;
}

/** The shells /etc/shells lists (comments and blank lines left out). */
export function listedShells(file = SYSTEM_FILES.shells): Set<string> {
  return new Set(
    readLines(file)
      .map((l) => l.trim())
      .filter((l) => l.startsWith('/')),
  );
}

function isExecutableFile(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The account the agent itself runs as, with its login shell (or /bin/sh). */
export function agentAccount(file = SYSTEM_FILES.passwd): Account {
  const info = os.userInfo();
  const entry = lookupUser(info.username, file);
  const candidates = [info.shell, entry?.shell, '/bin/sh'];
  const shell = candidates.find((s): s is string => !!s && path.isAbsolute(s) && isExecutableFile(s)) ?? '/bin/sh';
  return { name: info.username, uid: info.uid, gid: info.gid, home: info.homedir || entry?.home || '/', shell };
}

/** Checks a requested shell: absolute, an executable file, listed in /etc/shells. */
export function checkShell(shell: string, files: AccountFiles): string {
  if (!path.isAbsolute(shell)) throw new TerminalRefused(`the shell "${shell}" is not an absolute path`);
  if (path.normalize(shell) !== shell) throw new TerminalRefused(`the shell "${shell}" is not a normalised path`);
  if (!listedShells(files.shells).has(shell)) throw new TerminalRefused(`the shell ${shell} is not listed in ${files.shells}`);
  if (!isExecutableFile(shell)) throw new TerminalRefused(`the shell ${shell} does not exist or is not executable`);
  return shell;
}

export interface Resolved {
  account: Account;
  shell: string;
  /** True when the shell must be spawned with the account's uid/gid (the agent is root, the user another). */
  switchUser: boolean;
}

/** Resolves who runs the terminal and which shell, or throws TerminalRefused saying why. */
export function resolveAccount(request: { user?: string; shell?: string }, isRoot: boolean, files: AccountFiles, defaultShell?: string): Resolved {
  const own = agentAccount(files.passwd);
  const self = defaultShell ? { ...own, shell: defaultShell } : own;
  let account = self;
  let switchUser = false;
  if (request.user !== undefined && request.user !== self.name) {
    if (!isRoot) throw new TerminalRefused(`the agent runs as ${self.name}, not root, so it cannot open a terminal as ${request.user}`);
    const found = lookupUser(request.user, files.passwd);
    if (!found) throw new TerminalRefused(`there is no user "${request.user}" in ${files.passwd}`);
    account = found;
    switchUser = found.uid !== self.uid || found.gid !== self.gid;
  }
  if (request.shell !== undefined) return { account, shell: checkShell(request.shell, files), switchUser };
  if (account === self) return { account, shell: self.shell, switchUser };
  // Another user's login shell must be a real one: nologin and false are not in /etc/shells.
  if (!listedShells(files.shells).has(account.shell) || !isExecutableFile(account.shell)) {
    throw new TerminalRefused(`${account.name}'s login shell ${account.shell || '(none)'} is not a usable shell listed in ${files.shells}; ask for a shell explicitly`);
  }
  return { account, shell: account.shell, switchUser };
}

/** The shell's environment: nothing of the agent's own (no CORRAL_* settings), a standard PATH. */
export function shellEnvironment(account: Account, shell: string): Record<string, string> {
  return {
    TERM: 'xterm-256color',
    COLORTERM: 'truecolor',
    LANG: process.env.LANG || 'C.UTF-8',
    HOME: account.home,
    USER: account.name,
    LOGNAME: account.name,
    SHELL: shell,
    PATH: account.uid === 0 ? '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' : '/usr/local/bin:/usr/bin:/bin:/usr/local/games:/usr/games',
  };
}
