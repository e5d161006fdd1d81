// user: name, uid, gid (primary group, name or number), groups (exactly these supplementary
// groups), home, shell, system, ensure. useradd/usermod/userdel. A new non-system user gets
// its home directory created (useradd -m); an existing home is never moved, and userdel keeps it.
import { allGroups, lookupEntry, shadowTool } from './accounts.js';
import type { ProviderContext } from './context.js';
import { ensureOf, optBool, optStr, str, type Props, type Provider, type ResourceDiff } from './types.js';

export interface UserState {
  exists: boolean;
  uid?: number;
  gid?: number;
  /** The primary group's name (or number when it has none). */
  group?: string;
  groups?: string[];
  home?: string;
  shell?: string;
  /** The desired primary group as a gid; undefined when it does not exist yet. */
  wantedGid?: number;
}

function wantedUid(props: Props): number | undefined {
  const v = props.uid;
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new Error('uid must be a non-negative integer');
  return v;
}

function wantedGroups(props: Props): string[] | undefined {
  const v = props.groups;
  if (v === undefined) return undefined;
  if (!Array.isArray(v)) throw new Error('groups must be a list of group names');
  return [...new Set(v)].sort();
}

async function resolveGid(ctx: ProviderContext, gid: string): Promise<number | undefined> {
  const entry = await lookupEntry(ctx, 'group', gid);
  if (entry) return Number(entry[2]);
  return /^\d+$/.test(gid) ? Number(gid) : undefined;
}

export const userProvider: Provider<UserState> = {
  type: 'user',

  async read(props, ctx) {
    const name = str(props, 'name');
    const entry = await lookupEntry(ctx, 'passwd', name);
    const state: UserState = { exists: false };
    if (entry && entry[0] === name) {
      const gid = Number(entry[3]);
      const primary = await lookupEntry(ctx, 'group', String(gid));
      const groups = (await allGroups(ctx)).filter((g) => g[3]!.split(',').includes(name)).map((g) => g[0]!);
      Object.assign(state, { exists: true, uid: Number(entry[2]), gid, group: primary?.[0] ?? String(gid), groups: [...new Set(groups)].sort(), home: entry[5], shell: entry[6] });
    }
    if (ensureOf(props) === 'absent') return state;
    const uid = wantedUid(props);
    if (uid !== undefined && uid !== state.uid) {
      const holder = await lookupEntry(ctx, 'passwd', String(uid));
      if (holder && holder[0] !== name) throw new Error(`uid ${uid} already belongs to user "${holder[0]}"`);
    }
    const gid = optStr(props, 'gid');
    if (gid !== undefined) {
      const resolved = await resolveGid(ctx, gid);
      if (resolved !== undefined) state.wantedGid = resolved;
    }
    return state;
  },

  diff(desired, current) {
    const diff: ResourceDiff = { properties: {} };
    const p = diff.properties;
    if (ensureOf(desired) === 'absent') {
      if (current.exists) p.ensure = { before: 'present', after: 'absent' };
      return { changed: current.exists, diff };
    }
    if (!current.exists) p.ensure = { before: 'absent', after: 'present' };
    const uid = wantedUid(desired);
    if (uid !== undefined && uid !== current.uid) p.uid = { before: current.uid ?? null, after: uid };
    const gid = optStr(desired, 'gid');
    if (gid !== undefined && (current.wantedGid === undefined || current.wantedGid !== current.gid)) p.gid = { before: current.group ?? null, after: gid };
    const groups = wantedGroups(desired);
    if (groups !== undefined && groups.join(',') !== (current.groups ?? []).join(',')) p.groups = { before: current.groups ?? null, after: groups };
    for (const key of ['home', 'shell'] as const) {
      const v = optStr(desired, key);
      if (v !== undefined && v !== current[key]) p[key] = { before: current[key] ?? null, after: v };
    }
    return { changed: Object.keys(p).length > 0, diff };
  },

  async converge(desired, current, ctx) {
    const name = str(desired, 'name');
    if (ensureOf(desired) === 'absent') {
      ctx.mutating(`delete user ${name}`);
      await shadowTool(ctx, 'userdel', ['--', name]);
      return { message: 'removed' };
    }
    const changes = userProvider.diff(desired, current).diff.properties;
    const args: string[] = [];
    if (changes.uid) args.push('-u', String(wantedUid(desired)));
    if (changes.gid) args.push('-g', str(desired, 'gid'));
    if (changes.groups) args.push('-G', wantedGroups(desired)!.join(','));
    if (changes.home) args.push('-d', str(desired, 'home'));
    if (changes.shell) args.push('-s', str(desired, 'shell'));
    if (!current.exists) {
      ctx.mutating(`create user ${name}`);
      const system = optBool(desired, 'system') === true;
      await shadowTool(ctx, 'useradd', [...args, ...(system ? ['-r', '-M'] : ['-m']), '--', name]);
      return { message: 'created' };
    }
    ctx.mutating(`modify user ${name}`);
    await shadowTool(ctx, 'usermod', [...args, '--', name]);
    return { message: `changed ${Object.keys(changes).join(', ')}` };
  },
};
