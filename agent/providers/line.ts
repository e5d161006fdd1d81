// line: one line in a file. present: replace the first line matching `match` (or, without a
// match, add the exact line) and append when none is found; absent: remove every line matching
// `match` (or identical to `line`), so a second apply finds nothing left to do. A missing file is
// created by present (mode 0644) and is already right for absent.
import { promises as fs } from 'node:fs';
import type { ProviderContext } from './context.js';
import { unifiedDiff } from './file.js';
import { kindOf, lstatOrUndefined, parseMode, writeAtomic } from './fs-util.js';
import { ensureOf, optStr, str, type Props, type Provider, type ResourceDiff } from './types.js';

export interface LineState {
  exists: boolean;
  content: string;
  mode?: number;
}

/** The file's contents after the edit. Pure, so plan and apply agree by construction. */
export function editLines(content: string, props: Props): string {
  const line = str(props, 'line');
  const matchText = optStr(props, 'match');
  const match = matchText !== undefined ? new RegExp(matchText) : undefined;
  const lines = content === '' ? [] : content.split('\n');
  const hadFinalNewline = content === '' || content.endsWith('\n');
  if (content.endsWith('\n')) lines.pop();
  const join = (ls: string[]) => (ls.length === 0 ? '' : ls.join('\n') + (hadFinalNewline ? '\n' : ''));

  if (ensureOf(props) === 'absent') {
    const kept = lines.filter((l) => (match ? !match.test(l) : l !== line));
    return kept.length === lines.length ? content : join(kept);
  }
  const at = match ? lines.findIndex((l) => match.test(l)) : -1;
  if (at >= 0) {
    if (lines[at] === line) return content;
    lines[at] = line;
    return join(lines);
  }
  if (lines.includes(line)) return content;
  // Appending always ends the file with a newline.
  return [...lines, line].join('\n') + '\n';
}

export const lineProvider: Provider<LineState> = {
  type: 'line',

  async read(props, ctx) {
    const p = ctx.path(str(props, 'path'));
    str(props, 'line');
    const st = await lstatOrUndefined(p);
    if (!st) return { exists: false, content: '' };
    if (kindOf(st) === 'directory') throw new Error(`${p} is a directory`);
    // Follows a symlink: the line goes into the file it points to.
    const real = await fs.stat(p);
    return { exists: true, content: await fs.readFile(p, 'utf8'), mode: real.mode & 0o7777 };
  },

  diff(desired, current) {
    const after = editLines(current.content, desired);
    const diff: ResourceDiff = { properties: {} };
    if (after === current.content) return { changed: false, diff };
    if (!current.exists) diff.properties.ensure = { before: 'absent', after: 'present' };
    diff.content = unifiedDiff(str(desired, 'path'), current.content, after);
    return { changed: true, diff };
  },

  async converge(desired, current, ctx: ProviderContext) {
    const p = ctx.path(str(desired, 'path'));
    ctx.mutating(`edit ${p}`);
    const target = current.exists ? await fs.realpath(p) : p;
    const st = current.exists ? await fs.stat(target) : undefined;
    await writeAtomic(target, editLines(current.content, desired), current.mode ?? parseMode('0644'), st?.uid, st?.gid);
    return { message: current.exists ? 'line updated' : 'file created with the line' };
  },
};
