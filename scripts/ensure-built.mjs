#!/usr/bin/env node
// Builds Corral when dist/ is missing or older than the sources, so `npm start`
// and `npm run serve` always run current code. Only file times are compared
// (a few hundred stat calls), so an up-to-date checkout starts at once.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Files every `npm run build` rewrites; the oldest of these is the build's time. */
const OUTPUTS = ['dist/orchestrator/cli/main.js', 'dist/electron/main.js', 'dist/electron/preload.cjs', 'dist/renderer/index.html'];
/** Copied by scripts/copy-assets.mjs; only their presence is checked (a copy keeps the folder's time). */
const ASSET_DIRS = [['dist/orchestrator/db/migrations', '.sql']];
const SOURCE_DIRS = ['common', 'orchestrator', 'renderer', 'electron'];
const SOURCE_FILES = ['package.json', 'tsconfig.json', 'tsconfig.build.json'];
const SKIP = new Set(['node_modules', 'dist']);

function mtime(file) {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return null;
  }
}

/** The newest file under dir: [mtime, path]. */
function newest(dir, best = [0, '']) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return best;
  }
  for (const e of entries) {
    if (e.name.startsWith('.') || SKIP.has(e.name)) continue;
    const full = path.join(dir, e.name);
    if (e.isDirectory()) best = newest(full, best);
    else if (e.isFile()) {
      const t = mtime(full) ?? 0;
      if (t > best[0]) best = [t, full];
    }
  }
  return best;
}

/** Why a build is needed, or null when dist/ is current. */
export function staleReason() {
  let built = Infinity;
  for (const out of OUTPUTS) {
    const t = mtime(path.join(root, out));
    if (t === null) return `${out} is missing`;
    built = Math.min(built, t);
  }
  for (const [dir, suffix] of ASSET_DIRS) {
    let present = false;
    try {
      present = readdirSync(path.join(root, dir)).some((f) => f.endsWith(suffix));
    } catch {
      // missing folder: not built
    }
    if (!present) return `${dir}/*${suffix} is missing`;
  }
  let latest = [0, ''];
  for (const dir of SOURCE_DIRS) latest = newest(path.join(root, dir), latest);
  for (const file of SOURCE_FILES) {
    const t = mtime(path.join(root, file)) ?? 0;
    if (t > latest[0]) latest = [t, path.join(root, file)];
  }
  return latest[0] > built ? `${path.relative(root, latest[1])} changed since the last build` : null;
}

/** Runs `npm run build` if needed; returns false when the build failed. */
export function ensureBuilt() {
  const reason = staleReason();
  if (!reason) return true;
  console.log(`corral: building (${reason})...`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  if (r.status === 0) return true;
  console.error('corral: the build failed (see above); fix it, or run `node bin/corral.js serve` to start the last build');
  return false;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exit(ensureBuilt() ? 0 : 1);
}
