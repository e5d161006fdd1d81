// The state directory holds what the agent must keep across restarts: its identity
// key and, when it joined through discovery, which orchestrator it joined.
import { chmodSync, closeSync, fsyncSync, linkSync, mkdirSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** /var/lib/corral-agent for root (systemd's StateDirectory), else the user's XDG state home. */
export function defaultStateDir(env: NodeJS.ProcessEnv = process.env, isRoot = process.getuid?.() === 0): string {
  if (isRoot) return '/var/lib/corral-agent';
  const base = env.XDG_STATE_HOME || path.join(os.homedir(), '.local', 'state');
  return path.join(base, 'corral-agent');
}

/** Makes the directory (0700) and tightens it if it is group- or world-accessible: it holds a private key. */
export function ensureStateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = statSync(dir);
  if (!st.isDirectory()) throw new Error(`state directory ${dir} is not a directory`);
  if ((st.mode & 0o077) !== 0 && st.uid === process.getuid?.()) chmodSync(dir, 0o700);
}

function writeTemp(file: string, content: string, mode: number): string {
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  // 'wx' with the mode set at creation: the content is never readable by others, not even briefly.
  const fd = openSync(tmp, 'wx', mode);
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return tmp;
}

/** Writes a file atomically (temp file + rename) with the given mode; a crash leaves the old or the new file, never half of one. */
export function writeFileAtomic(file: string, content: string, mode = 0o600): void {
  const tmp = writeTemp(file, content, mode);
  try {
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/**
 * Creates a file only if it does not exist yet, atomically (temp file + hard link).
 * Returns false when another process made it first; the caller then reads theirs.
 */
export function createFileExclusive(file: string, content: string, mode = 0o600): boolean {
  const tmp = writeTemp(file, content, mode);
  try {
    linkSync(tmp, file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    rmSync(tmp, { force: true });
  }
}
