// What `recurse: true` manages below a directory: every entry's owner and group, and the
// mode of subdirectories (files keep theirs: one mode cannot suit both, and making every
// file executable to give directories their x bits would be worse). Symbolic links are
// not followed; their own owner and group are set.
import { promises as fs, type Stats } from 'node:fs';
import path from 'node:path';
import type { WantedIds } from './fs-util.js';

/** Past this many entries the tree is too big to manage this way (a clear failure, not a long hang). */
export const MAX_TREE_ENTRIES = 100_000;

export interface TreeMismatch {
  /** Entries below the directory whose owner, group or (directories) mode differ. */
  count: number;
  /** The first few, relative to the directory, for the diff. */
  sample: string[];
}

export interface TreeWanted extends WantedIds {
  /** Permission bits for subdirectories. */
  dirMode?: number;
}

function differs(st: Stats, wanted: TreeWanted): boolean {
  if (wanted.uid !== undefined && st.uid !== wanted.uid) return true;
  if (wanted.gid !== undefined && st.gid !== wanted.gid) return true;
  return wanted.dirMode !== undefined && st.isDirectory() && (st.mode & 0o7777) !== wanted.dirMode;
}

/** Every entry below `root` (not root itself), depth first, with its lstat. */
async function* walk(root: string): AsyncGenerator<{ full: string; st: Stats }> {
  let seen = 0;
  const stack = [root];
  while (stack.length) {
    const dir = stack.pop()!;
    for (const name of await fs.readdir(dir)) {
      if (++seen > MAX_TREE_ENTRIES) throw new Error(`${root} has more than ${MAX_TREE_ENTRIES} entries below it; recurse manages smaller trees`);
      const full = path.join(dir, name);
      const st = await fs.lstat(full);
      if (st.isDirectory()) stack.push(full);
      yield { full, st };
    }
  }
}

export async function treeMismatch(root: string, wanted: TreeWanted): Promise<TreeMismatch> {
  const out: TreeMismatch = { count: 0, sample: [] };
  for await (const { full, st } of walk(root)) {
    if (!differs(st, wanted)) continue;
    out.count++;
    if (out.sample.length < 10) out.sample.push(path.relative(root, full));
  }
  return out;
}

/** Sets owner, group and directory modes below `root`; the caller has passed ctx.mutating. */
export async function applyTree(root: string, wanted: TreeWanted): Promise<number> {
  let changed = 0;
  for await (const { full, st } of walk(root)) {
    if (!differs(st, wanted)) continue;
    if ((wanted.uid !== undefined && st.uid !== wanted.uid) || (wanted.gid !== undefined && st.gid !== wanted.gid)) {
      await fs.lchown(full, wanted.uid ?? st.uid, wanted.gid ?? st.gid);
    }
    if (wanted.dirMode !== undefined && st.isDirectory()) await fs.chmod(full, wanted.dirMode);
    changed++;
  }
  return changed;
}
