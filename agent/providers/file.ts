// file: path, content (or an already-expanded template), mode, owner, group, ensure.
// Written atomically; contents diff as a unified diff, metadata as before/after.
import { promises as fs } from 'node:fs';
import { createTwoFilesPatch } from 'diff';
import type { ProviderContext } from './context.js';
import { applyMetadata, kindOf, lstatOrUndefined, metadataChanges, ownershipOf, parseMode, wantedIds, writeAtomic, type Ownership, type WantedIds } from './fs-util.js';
import { ensureOf, optStr, str, type DiffResult, type Props, type Provider, type ResourceDiff } from './types.js';

export interface FileState {
  exists: boolean;
  /** Present when the resource manages contents and the file exists. */
  content?: string;
  meta?: Ownership;
  wanted: WantedIds;
}

/** `template` arrives expanded; either one is the contents. */
function desiredContent(props: Props): string | undefined {
  return optStr(props, 'content') ?? optStr(props, 'template');
}

export function unifiedDiff(file: string, before: string, after: string): string {
  return createTwoFilesPatch(file, file, before, after, 'current', 'desired');
}

export const fileProvider: Provider<FileState> = {
  type: 'file',

  async read(props, ctx) {
    const p = ctx.path(str(props, 'path'));
    const ensure = ensureOf(props);
    const wanted = ensure === 'present' ? await wantedIds(optStr(props, 'owner'), optStr(props, 'group')) : {};
    const st = await lstatOrUndefined(p);
    if (!st) return { exists: false, wanted };
    const kind = kindOf(st);
    if (kind === 'directory' || kind === 'other') throw new Error(`${p} is a ${kind === 'other' ? 'special file' : kind}, not a file`);
    if (kind === 'symlink') throw new Error(`${p} is a symbolic link, not a file (use a symlink resource, or remove it first)`);
    const state: FileState = { exists: true, meta: await ownershipOf(st), wanted };
    if (ensure === 'present' && desiredContent(props) !== undefined) state.content = await fs.readFile(p, 'utf8');
    return state;
  },

  diff(desired, current): DiffResult {
    const path = str(desired, 'path');
    const diff: ResourceDiff = { properties: {} };
    if (ensureOf(desired) === 'absent') {
      if (current.exists) diff.properties.ensure = { before: 'present', after: 'absent' };
      return { changed: current.exists, diff };
    }
    const content = desiredContent(desired);
    const mode = optStr(desired, 'mode');
    const owner = optStr(desired, 'owner');
    const group = optStr(desired, 'group');
    if (!current.exists) {
      diff.properties.ensure = { before: 'absent', after: 'present' };
      if (content !== undefined) diff.content = unifiedDiff(path, '', content);
      if (mode !== undefined) diff.properties.mode = { before: null, after: mode };
      if (owner !== undefined) diff.properties.owner = { before: null, after: owner };
      if (group !== undefined) diff.properties.group = { before: null, after: group };
      return { changed: true, diff };
    }
    if (content !== undefined && current.content !== content) diff.content = unifiedDiff(path, current.content ?? '', content);
    Object.assign(diff.properties, metadataChanges({ mode, owner, group }, current.meta!, current.wanted));
    return { changed: diff.content !== undefined || Object.keys(diff.properties).length > 0, diff };
  },

  async converge(desired, current, ctx: ProviderContext) {
    const p = ctx.path(str(desired, 'path'));
    if (ensureOf(desired) === 'absent') {
      ctx.mutating(`remove file ${p}`);
      await fs.rm(p, { force: true });
      return { message: 'removed' };
    }
    const content = desiredContent(desired);
    const modeText = optStr(desired, 'mode');
    const wanted = await wantedIds(optStr(desired, 'owner'), optStr(desired, 'group'), true);
    if (!current.exists || (content !== undefined && current.content !== content)) {
      ctx.mutating(`write file ${p}`);
      const mode = modeText !== undefined ? parseMode(modeText) : current.meta ? parseMode(current.meta.mode) : 0o644;
      // Keep the owner of a file being rewritten unless a new one is wanted.
      const uid = wanted.uid ?? current.meta?.uid;
      const gid = wanted.gid ?? current.meta?.gid;
      await writeAtomic(p, content ?? '', mode, uid, gid);
      return { message: current.exists ? 'contents updated' : 'created' };
    }
    ctx.mutating(`set owner/group/mode of ${p}`);
    await applyMetadata(p, { mode: modeText }, wanted, await fs.lstat(p));
    return { message: 'metadata updated' };
  },
};
