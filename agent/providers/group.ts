// group: name, gid, system (used when creating), ensure. groupadd/groupmod/groupdel.
import { lookupEntry, shadowTool } from './accounts.js';
import { ensureOf, optBool, str, type Props, type Provider, type ResourceDiff } from './types.js';

export interface GroupState {
  exists: boolean;
  gid?: number;
}

function wantedGid(props: Props): number | undefined {
  const v = props.gid;
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new Error('gid must be a non-negative integer');
  return v;
}

export const groupProvider: Provider<GroupState> = {
  type: 'group',

  async read(props, ctx) {
    const name = str(props, 'name');
    const entry = await lookupEntry(ctx, 'group', name);
    const state: GroupState = entry && entry[0] === name ? { exists: true, gid: Number(entry[2]) } : { exists: false };
    const gid = wantedGid(props);
    // A gid held by another group would make groupadd/groupmod fail: say so in the plan too.
    if (ensureOf(props) === 'present' && gid !== undefined && gid !== state.gid) {
      const holder = await lookupEntry(ctx, 'group', String(gid));
      if (holder && holder[0] !== name) throw new Error(`gid ${gid} already belongs to group "${holder[0]}"`);
    }
    return state;
  },

  diff(desired, current) {
    const diff: ResourceDiff = { properties: {} };
    if (ensureOf(desired) === 'absent') {
      if (current.exists) diff.properties.ensure = { before: 'present', after: 'absent' };
      return { changed: current.exists, diff };
    }
    const gid = wantedGid(desired);
    if (!current.exists) diff.properties.ensure = { before: 'absent', after: 'present' };
    if (gid !== undefined && gid !== current.gid) diff.properties.gid = { before: current.gid ?? null, after: gid };
    return { changed: Object.keys(diff.properties).length > 0, diff };
  },

  async converge(desired, current, ctx) {
    const name = str(desired, 'name');
    if (ensureOf(desired) === 'absent') {
      ctx.mutating(`delete group ${name}`);
      await shadowTool(ctx, 'groupdel', ['--', name]);
      return { message: 'removed' };
    }
    const gid = wantedGid(desired);
    const gidArgs = gid !== undefined ? ['-g', String(gid)] : [];
    if (!current.exists) {
      ctx.mutating(`create group ${name}`);
      await shadowTool(ctx, 'groupadd', [...gidArgs, ...(optBool(desired, 'system') ? ['-r'] : []), '--', name]);
      return { message: 'created' };
    }
    ctx.mutating(`change gid of group ${name}`);
    await shadowTool(ctx, 'groupmod', [...gidArgs, '--', name]);
    return { message: 'gid changed' };
  },
};
