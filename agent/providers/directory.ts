// directory: path, mode, owner, group, ensure (parents created), recurse (present: owner/group of
// everything below and the mode of subdirectories, see directory-tree.ts; absent: remove a non-empty directory).
import { promises as fs } from 'node:fs';
import type { ProviderContext } from './context.js';
import { applyMetadata, kindOf, lstatOrUndefined, metadataChanges, ownershipOf, parseMode, wantedIds, type Ownership, type WantedIds } from './fs-util.js';
import { applyTree, treeMismatch, type TreeMismatch, type TreeWanted } from './directory-tree.js';
import { ensureOf, optBool, optStr, str, type Props, type Provider, type ResourceDiff } from './types.js';

export interface DirectoryState {
  exists: boolean;
  empty?: boolean;
  meta?: Ownership;
  wanted: WantedIds;
  /** With recurse and ensure present: what differs below. */
  below?: TreeMismatch;
}

function treeWanted(props: Props, wanted: WantedIds): TreeWanted {
  const mode = optStr(props, 'mode');
  return { ...wanted, ...(mode !== undefined ? { dirMode: parseMode(mode) } : {}) };
}

function metaOf(props: Props) {
  return { mode: optStr(props, 'mode'), owner: optStr(props, 'owner'), group: optStr(props, 'group') };
}

export const directoryProvider: Provider<DirectoryState> = {
  type: 'directory',

  async read(props, ctx) {
    const p = ctx.path(str(props, 'path'));
    const ensure = ensureOf(props);
    const m = metaOf(props);
    const wanted = ensure === 'present' ? await wantedIds(m.owner, m.group) : {};
    const st = await lstatOrUndefined(p);
    if (!st) return { exists: false, wanted };
    if (kindOf(st) !== 'directory') throw new Error(`${p} exists and is not a directory`);
    const state: DirectoryState = { exists: true, meta: await ownershipOf(st), wanted };
    if (ensure === 'absent') state.empty = (await fs.readdir(p)).length === 0;
    else if (optBool(props, 'recurse') === true) state.below = await treeMismatch(p, treeWanted(props, wanted));
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
    if (current.below && current.below.count > 0) {
      const more = current.below.count - current.below.sample.length;
      diff.properties.recurse = {
        before: `${current.below.count} entr${current.below.count === 1 ? 'y' : 'ies'} below differ: ${current.below.sample.join(', ')}${more > 0 ? ` and ${more} more` : ''}`,
        after: 'owner and group of everything below, mode of subdirectories, as set',
      };
    }
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
    if (optBool(desired, 'recurse') === true) {
      const below = await applyTree(p, treeWanted(desired, wanted));
      if (below > 0) message += `; ${below} below updated`;
    }
    return { message };
  },
};
