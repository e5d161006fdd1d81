#!/usr/bin/env node
// Entry point of the `corral` command: runs the built CLI (npm run build makes dist/).
import { existsSync } from 'node:fs';

const built = new URL('../dist/orchestrator/cli/main.js', import.meta.url);
if (!existsSync(built)) {
  console.error('corral: not built yet; run `npm run build` in the Corral checkout first');
  process.exit(1);
}
await import(built.href);
