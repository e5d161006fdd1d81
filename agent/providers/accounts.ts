// Account databases for the user and group providers. On a real machine ("/" root) entries
// come from getent (NSS); under a root prefix (tests, images) from <root>/etc/passwd|group,
// and the shadow tools are given --prefix so they edit those files instead of the machine's.
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import type { ProviderContext } from './context.js';
import { forgetAccounts, getent } from './fs-util.js';

/** The entry whose name (or numeric id) is `key`, split on ":". */
export async function lookupEntry(ctx: ProviderContext, db: 'passwd' | 'group', key: string): Promise<string[] | undefined> {
  if (ctx.root === '/') return getent(db, key);
  let text: string;
  try {
    text = await fs.readFile(ctx.path(`/etc/${db}`), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  const numeric = /^\d+$/.test(key);
  for (const line of text.split('\n')) {
    const f = line.split(':');
    if (f.length < 3) continue;
    if (f[0] === key || (numeric && f[2] === key)) return f;
  }
  return undefined;
}

/** Runs one of the shadow tools (groupadd, usermod, ...) under the context's root. */
export function shadowTool(ctx: ProviderContext, tool: string, args: string[]): Promise<string> {
  const full = ctx.root === '/' ? args : ['--prefix', ctx.root, ...args];
  return new Promise((resolve, reject) => {
    execFile(tool, full, { timeout: 60_000 }, (err, stdout, stderr) => {
      // Whatever the tool did (even failing half-way), cached account entries may be wrong now.
      forgetAccounts();
      if (err) reject(new Error(`${tool} failed: ${(stderr || err.message).trim()}`));
      else resolve(stdout);
    });
  });
}

/** Every group entry (for a user's supplementary groups). */
export async function allGroups(ctx: ProviderContext): Promise<string[][]> {
  let text: string;
  if (ctx.root === '/') {
    text = await new Promise<string>((resolve, reject) => {
      execFile('getent', ['group'], { timeout: 30_000, maxBuffer: 64 * 1024 * 1024 }, (err, stdout) => (err ? reject(new Error(`getent group: ${err.message}`)) : resolve(stdout)));
    });
  } else {
    try {
      text = await fs.readFile(ctx.path('/etc/group'), 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw e;
    }
  }
  return text
    .split('\n')
    .map((l) => l.split(':'))
    .filter((f) => f.length >= 4);
}
