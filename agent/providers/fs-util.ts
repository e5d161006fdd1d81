// Shared by the file-system providers: owner/group names, modes, atomic writes.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promises as fs, type Stats } from 'node:fs';
import path from 'node:path';

export function formatMode(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, '0');
}

export function parseMode(mode: string): number {
  if (!/^[0-7]{3,4}$/.test(mode)) throw new Error(`mode must be octal like "0644", not "${mode}"`);
  return parseInt(mode, 8);
}

/** lstat that answers undefined for a missing path. */
export async function lstatOrUndefined(p: string): Promise<Stats | undefined> {
  try {
    return await fs.lstat(p);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

export function kindOf(st: Stats): 'file' | 'directory' | 'symlink' | 'other' {
  if (st.isSymbolicLink()) return 'symlink';
  if (st.isFile()) return 'file';
  if (st.isDirectory()) return 'directory';
  return 'other';
}

/**
 * Entries found in the last few seconds. A run reads the owner of every file it manages,
 * and a getent process per lookup was most of the time an unchanged apply took (two per
 * file). Only found entries are kept, briefly, and every account change forgets them all
 * (forgetAccounts), so a user created by one resource is seen by the next.
 */
const ACCOUNT_CACHE_MS = 5_000;
const accountCache = new Map<string, { entry: string[]; at: number }>();

export function forgetAccounts(): void {
  accountCache.clear();
}

export async function getent(db: 'passwd' | 'group', key: string): Promise<string[] | undefined> {
  const cacheKey = `${db}\n${key}`;
  const hit = accountCache.get(cacheKey);
  if (hit && Date.now() - hit.at < ACCOUNT_CACHE_MS) return hit.entry;
  const entry = await runGetent(db, key);
  if (entry) accountCache.set(cacheKey, { entry, at: Date.now() });
  else accountCache.delete(cacheKey);
  return entry;
}

function runGetent(db: 'passwd' | 'group', key: string): Promise<string[] | undefined> {
  return new Promise((resolve, reject) => {
    execFile('getent', [db, key], { timeout: 10_000 }, (err, stdout) => {
      if (err) {
        // getent exits 2 when the key is not found.
        if ((err as { code?: unknown }).code === 2) resolve(undefined);
        else reject(new Error(`getent ${db} ${key}: ${err.message}`));
        return;
      }
      resolve(stdout.trim().split('\n')[0]?.split(':'));
    });
  });
}

/** A user name (or a number) to a uid; throws for an unknown user. */
export async function userId(name: string): Promise<number> {
  const entry = await getent('passwd', name);
  if (entry?.[2] !== undefined) return Number(entry[2]);
  if (/^\d+$/.test(name)) return Number(name);
  throw new Error(`unknown user "${name}"`);
}

export interface Account {
  name: string;
  uid: number;
  gid: number;
  home: string;
}

/** A user's passwd entry (for running a script as them). */
export async function userAccount(name: string): Promise<Account> {
  const e = await getent('passwd', name);
  if (!e || e.length < 6) throw new Error(`unknown user "${name}"`);
  return { name: e[0]!, uid: Number(e[2]), gid: Number(e[3]), home: e[5]! };
}

export async function groupId(name: string): Promise<number> {
  const entry = await getent('group', name);
  if (entry?.[2] !== undefined) return Number(entry[2]);
  if (/^\d+$/.test(name)) return Number(name);
  throw new Error(`unknown group "${name}"`);
}

export async function userName(uid: number): Promise<string> {
  return (await getent('passwd', String(uid)))?.[0] ?? String(uid);
}

export async function groupName(gid: number): Promise<string> {
  return (await getent('group', String(gid)))?.[0] ?? String(gid);
}

/** Owner, group and mode of an existing path, and the ids the desired names map to. */
export interface Ownership {
  mode: string;
  uid: number;
  gid: number;
  owner: string;
  group: string;
}

export async function ownershipOf(st: Stats): Promise<Ownership> {
  return { mode: formatMode(st.mode), uid: st.uid, gid: st.gid, owner: await userName(st.uid), group: await groupName(st.gid) };
}

/**
 * Desired owner/group resolved to ids. At read time a name that does not exist yet is left
 * unresolved (a user or group resource earlier in the same apply may create it), so the
 * plan shows the change instead of failing; converge resolves strictly and fails then.
 */
export interface WantedIds {
  uid?: number;
  gid?: number;
}

export async function wantedIds(owner: string | undefined, group: string | undefined, strict = false): Promise<WantedIds> {
  const soft = async (f: () => Promise<number>): Promise<number | undefined> => {
    try {
      return await f();
    } catch (e) {
      if (strict || !/^unknown (user|group)/.test((e as Error).message)) throw e;
      return undefined;
    }
  };
  const out: WantedIds = {};
  if (owner !== undefined) {
    const uid = await soft(() => userId(owner));
    if (uid !== undefined) out.uid = uid;
  }
  if (group !== undefined) {
    const gid = await soft(() => groupId(group));
    if (gid !== undefined) out.gid = gid;
  }
  return out;
}

/** Compares owner, group and mode of an existing path with the desired ones. */
export function metadataChanges(
  desired: { mode?: string; owner?: string; group?: string },
  current: Ownership,
  wanted: WantedIds,
): Record<string, { before: unknown; after: unknown }> {
  const out: Record<string, { before: unknown; after: unknown }> = {};
  if (desired.mode !== undefined && parseMode(desired.mode) !== parseMode(current.mode)) out.mode = { before: current.mode, after: formatMode(parseMode(desired.mode)) };
  if (desired.owner !== undefined && wanted.uid !== current.uid) out.owner = { before: current.owner, after: desired.owner };
  if (desired.group !== undefined && wanted.gid !== current.gid) out.group = { before: current.group, after: desired.group };
  return out;
}

/** Applies owner/group/mode to a path where they differ (lchown: never follows a link). */
export async function applyMetadata(p: string, desired: { mode?: string }, wanted: WantedIds, st: Stats): Promise<void> {
  const uid = wanted.uid ?? st.uid;
  const gid = wanted.gid ?? st.gid;
  if (uid !== st.uid || gid !== st.gid) await fs.lchown(p, uid, gid);
  // chown can clear setuid/setgid bits, so the mode goes last.
  if (desired.mode !== undefined && parseMode(desired.mode) !== (st.mode & 0o7777)) await fs.chmod(p, parseMode(desired.mode));
}

/**
 * Writes a file atomically: a temp file in the same directory with the final mode and
 * owner, flushed, then renamed over the target. A reader sees the old or the new file, never half.
 */
export async function writeAtomic(target: string, content: string, mode: number, uid: number | undefined, gid: number | undefined): Promise<void> {
  const tmp = path.join(path.dirname(target), `.${path.basename(target)}.corral-${randomBytes(6).toString('hex')}`);
  const handle = await fs.open(tmp, 'wx', 0o600);
  try {
    await handle.writeFile(content);
    // chown only when needed: a non-root agent can still rewrite its own files.
    const st = await handle.stat();
    if ((uid !== undefined && uid !== st.uid) || (gid !== undefined && gid !== st.gid)) await handle.chown(uid ?? -1, gid ?? -1);
    await handle.chmod(mode);
    await handle.sync();
    await handle.close();
    await fs.rename(tmp, target);
  } catch (e) {
    await handle.close().catch(() => undefined);
    await fs.rm(tmp, { force: true });
    throw e;
  }
}
