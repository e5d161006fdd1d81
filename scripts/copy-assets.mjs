#!/usr/bin/env node
// Part of `npm run build:node`: copies what tsc does not (the SQL migrations)
// into dist/, mirroring the source folder so a removed file leaves no stale copy.
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** [source folder, destination folder, file suffix], relative to the package root. */
const ASSETS = [['orchestrator/db/migrations', 'dist/orchestrator/db/migrations', '.sql']];

for (const [from, to, suffix] of ASSETS) {
  const src = path.join(root, from);
  const dest = path.join(root, to);
  const files = readdirSync(src).filter((f) => f.endsWith(suffix));
  mkdirSync(dest, { recursive: true });
  if (existsSync(dest)) for (const f of readdirSync(dest)) if (f.endsWith(suffix) && !files.includes(f)) rmSync(path.join(dest, f));
  for (const f of files) copyFileSync(path.join(src, f), path.join(dest, f));
  console.log(`copy-assets: ${files.length} ${suffix} file(s) ${from} -> ${to}`);
}
