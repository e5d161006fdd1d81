#!/usr/bin/env node
// Entry point of the `corral-agent` command: runs the built agent (npm run build makes dist/).
// From a checkout without a build, `npm run agent -- <flags>` runs the same code through tsx.
import { existsSync } from 'node:fs';

const built = new URL('../dist/agent/main.js', import.meta.url);
if (!existsSync(built)) {
  console.error('corral-agent: not built yet; run `npm run build:node` in the Corral checkout first (or use `npm run agent -- <flags>`)');
  process.exit(1);
}
await import(built.href);
