// symlink: path, target, ensure. A link pointing elsewhere is replaced atomically; a file or
// directory in the way is refused (never deleted to make room).
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { ProviderContext } from './context.js';
import { kindOf, lstatOrUndefined } from './fs-util.js';
import { ensureOf, str, type Provider, type ResourceDiff } from './types.js';

export interface SymlinkState {
  /** undefined: nothing at the path. */
  target?: string;
}

export const symlinkProvider: Provider<SymlinkState> = {
  type: 'symlink',

  async read(props, ctx) {
    const p = ctx.path(str(props, 'path'));
    if (ensureOf(props) === 'present') str(props, 'target');
    const st = await lstatOrUndefined(p);
    if (!st) return {};
    const kind = kindOf(st);
    if (kind !== 'symlink') throw new Error(`${p} is a ${kind === 'other' ? 'special file' : kind}, not a symbolic link; refusing to replace it`);
    return { target: await fs.readlink(p) };
  },

  diff(desired, current) {
    const diff: ResourceDiff = { properties: {} };
    if (ensureOf(desired) === 'absent') {
      if (current.target !== undefined) diff.properties.ensure = { before: 'present', after: 'absent' };
      return { changed: current.target !== undefined, diff };
    }
    // The target is written as given (not under the root prefix): it is the link's text.
    const target = str(desired, 'target');
    if (current.target === undefined) diff.properties.ensure = { before: 'absent', after: 'present' };
    if (current.target !== target) diff.properties.target = { before: current.target ?? null, after: target };
    return { changed: current.target !== target, diff };
  },

  async converge(desired, current, ctx: ProviderContext) {
    const p = ctx.path(str(desired, 'path'));
    if (ensureOf(desired) === 'absent') {
      ctx.mutating(`remove symlink ${p}`);
      await fs.rm(p, { force: true });
      return { message: 'removed' };
    }
    ctx.mutating(`link ${p} -> ${str(desired, 'target')}`);
    const tmp = path.join(path.dirname(p), `.${path.basename(p)}.corral-${randomBytes(6).toString('hex')}`);
    await fs.symlink(str(desired, 'target'), tmp);
    try {
      await fs.rename(tmp, p);
    } catch (e) {
      await fs.rm(tmp, { force: true });
      throw e;
    }
    return { message: current.target === undefined ? 'created' : 'retargeted' };
  },
};
