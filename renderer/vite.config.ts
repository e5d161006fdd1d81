import { svelte } from '@sveltejs/vite-plugin-svelte';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { defineConfig } from 'vite';

const root = import.meta.dirname;
const repoRoot = path.resolve(root, '..');
const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string };

// The orchestrator serves dist/renderer from the same origin as the API, so the
// build uses relative asset paths and the dev server proxies /api to a local one.
export default defineConfig({
  root,
  base: './',
  plugins: [svelte()],
  define: { __CORRAL_VERSION__: JSON.stringify(pkg.version) },
  build: {
    outDir: path.join(repoRoot, 'dist', 'renderer'),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
  },
  server: {
    port: 5173,
    // The renderer imports shared code from ../common.
    fs: { allow: [repoRoot] },
    proxy: { '/api': { target: 'http://127.0.0.1:7390', ws: true } },
  },
});
