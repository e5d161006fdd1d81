import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { ROOT, SCREENSHOT_DIR } from './support/paths.js';

export default function globalSetup(): void {
  if (!existsSync(path.join(ROOT, 'dist', 'renderer', 'index.html'))) {
    throw new Error('The web UI is not built: run `npm run build:renderer` (or `npm run build`) before the end-to-end tests.');
  }
  if (!existsSync('/usr/bin/chromium')) {
    throw new Error('Chromium is missing: install it with `apt-get install -y chromium` (the tests use /usr/bin/chromium).');
  }
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
}
