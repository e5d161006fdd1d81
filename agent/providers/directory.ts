// directory: path, mode, owner, group, ensure (parents created), recurse (absent: remove a non-empty directory).
import { promises as fs } from 'node:fs';
import type { ProviderContext } from './context.js';
import { applyMetadata, kindOf, lstatOrUndefined, metadataChanges, ownershipOf, parseMode, wantedIds, type Ownership, type WantedIds } from './fs-util.js';
import { ensureOf, optBool, optStr, str, type Props, type Provider, type ResourceDiff } from './types.js';

export interface DirectoryState {
  exists: boolean;
  empty?: boolean;
  meta?: Ownership;
  wanted: WantedIds;
}

function metaOf(props: Props) {
  return { mode: optStr(props, 'mode'), owner: optStr(props, 'owner'), group: optStr(props, 'group') };
}

export const directoryProvider: Provider<DirectoryState> = {
  type: 'directory',

  async read(props, ctx) {
    const p = ctx.path(str(props, 'path'));
    const ensure = ensureOf(props);
    // Applying owner/group/mode below the directory is not built yet: refuse rather than half-do it.
    if (ensure === 'present' && optBool(props, 'recurse') === true) throw new Error('recurse with ensure present is not supported yet');
    const m = metaOf(props);
    const wanted = ensure === 'present' ? await wantedIds(m.owner, m.group) : {};
    const st = await lstatOrUndefined(p);
    if (!st) return { exists: false, wanted };
    if (kindOf(st) !== 'directory') throw new Error(`${p} exists and is not a directory`);
    const state: DirectoryState = { exists: true, meta: await ownershipOf(st), wanted };
    if (ensure === 'absent') state.empty = (await fs.readdir(p)).length === 0;
    return state;
  },

  diff(desired, current) {
    const diff: ResourceDiff = { properties: {} };
    if (ensureOf(desired) === 'absent') {
      if (current.exists) diff.properties.ensure = { before: 'present', after: 'absent' };
      return { changed: current.exists, diff };
    }
    const m = metaOf(desired);
    if (!current.exists) {
      diff.properties.ensure = { before: 'absent', after: 'present' };
      for (const [k, v] of Object.entries(m)) if (v !== undefined) diff.properties[k] = { before: null, after: v };
      return { changed: true, diff };
    }
    Object.assign(diff.properties, metadataChanges(m, current.meta!, current.wanted));
    return { changed: Object.keys(diff.properties).length > 0, diff };
  },

  async converge(desired, current, ctx: ProviderContext) {
    const p = ctx.path(str(desired, 'path'));
    if (ensureOf(desired) === 'absent') {
      if (current.empty === false && optBool(desired, 'recurse') !== true) throw new Error(`${p} is not empty (set recurse: true to remove it with its contents)`);
      ctx.mutating(`remove directory ${p}`);
      await fs.rm(p, { recursive: true, force: true });
      return { message: 'removed' };
    }
    const m = metaOf(desired);
    const wanted = await wantedIds(m.owner, m.group, true);
    let message = 'metadata updated';
    if (!current.exists) {
      ctx.mutating(`create directory ${p}`);
      await fs.mkdir(p, { recursive: true, mode: m.mode !== undefined ? parseMode(m.mode) : 0o755 });
      message = 'created';
    } else {
      ctx.mutating(`set owner/group/mode of ${p}`);
    }
    // mkdir's mode is filtered by the umask; set it exactly.
    await applyMetadata(p, { mode: m.mode }, wanted, await fs.lstat(p));
    return { message };
  },
};
