#!/usr/bin/env node
// `npm start`: the desktop app where it can run, `corral serve` everywhere else.
//   1. build if dist/ is missing or stale (scripts/ensure-built.mjs);
//   2. with a display and the Electron binary (fetched once here if missing,
//      since `npm install` does not run Electron's download script), run `electron .`;
//   3. otherwise say in one line why not, and run `corral serve` with any extra
//      arguments (`npm start -- --http --port 8080`).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBuilt } from './ensure-built.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const args = process.argv.slice(2);

const DOWNLOAD_TIMEOUT_MS = 60_000;
/** After a failed download, later starts skip the attempt for this long. */
const RETRY_AFTER_MS = 6 * 3600_000;
const failureFile = path.join(root, 'node_modules', '.cache', 'corral', 'electron-download-failed.json');

/** The Electron executable, or null: the package throws when its binary was never downloaded. */
function electronBinary() {
  try {
    delete require.cache[require.resolve('electron')];
    const file = require('electron');
    return typeof file === 'string' && existsSync(file) ? file : null;
  } catch {
    return null;
  }
}

function displayMissing() {
  if (process.platform === 'darwin' || process.platform === 'win32') return null;
  if (process.platform !== 'linux') return `Electron has no build for ${process.platform}`;
  return process.env.DISPLAY || process.env.WAYLAND_DISPLAY ? null : 'no display (DISPLAY and WAYLAND_DISPLAY are unset)';
}

function recentFailure() {
  try {
    const { at, error } = JSON.parse(readFileSync(failureFile, 'utf8'));
    return Date.now() - at < RETRY_AFTER_MS ? { at, error } : null;
  } catch {
    return null;
  }
}

/** Tries once to fetch the Electron binary; returns null on success or why it failed. */
function downloadElectron() {
  if (process.env.CORRAL_NO_ELECTRON_DOWNLOAD === '1') return 'the Electron binary is not installed and CORRAL_NO_ELECTRON_DOWNLOAD=1';
  if (process.env.CI) return 'the Electron binary is not installed and CI is set';
  const failed = recentFailure();
  if (failed) {
    return `the Electron binary is not installed; fetching it failed at ${new Date(failed.at).toLocaleString()} (${failed.error}); retry with "node node_modules/electron/install.js"`;
  }
  console.log(`corral: fetching the Electron binary (one try, at most ${DOWNLOAD_TIMEOUT_MS / 1000} s)...`);
  const r = spawnSync(process.execPath, [path.join(root, 'node_modules', 'electron', 'install.js')], {
    cwd: root,
    encoding: 'utf8',
    timeout: DOWNLOAD_TIMEOUT_MS,
    killSignal: 'SIGKILL',
  });
  if (r.status === 0 && electronBinary()) return null;
  const output = `${r.stderr ?? ''}\n${r.stdout ?? ''}`;
  const error = r.error?.code === 'ETIMEDOUT' ? `not done within ${DOWNLOAD_TIMEOUT_MS / 1000} s; on a slow link run "node node_modules/electron/install.js" once` : (output.split('\n').find((l) => /error/i.test(l))?.trim() ?? `exit ${r.status ?? r.signal}`);
  mkdirSync(path.dirname(failureFile), { recursive: true });
  writeFileSync(failureFile, JSON.stringify({ at: Date.now(), error }));
  return `the Electron binary could not be fetched (${error})`;
}

/** Native modules are built for one ABI; Electron's Node differs from the system Node. */
function nativeModulesMismatch(electron) {
  const probe = "new (require('better-sqlite3'))(':memory:').close()";
  const r = spawnSync(electron, ['-e', probe], { cwd: root, encoding: 'utf8', timeout: 30_000, env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } });
  if (r.status === 0) return null;
  return 'better-sqlite3 is built for this Node, not for Electron: run "npx electron-builder install-app-deps" to rebuild it for Electron ("npm rebuild better-sqlite3" goes back)';
}

/**
 * Runs a child and exits with its code. The child gets its own process group, so
 * Ctrl+C reaches it once, from here: a terminal signals the whole foreground group
 * and npm forwards the same signal again, and a second SIGINT would cut the
 * orchestrator's clean shutdown short. Signals within 500 ms count as one; a later
 * Ctrl+C is passed on again (to force a stuck child).
 */
function runForeground(command, commandArgs, env = process.env) {
  const child = spawn(command, commandArgs, { cwd: root, stdio: 'inherit', env, detached: process.platform !== 'win32' });
  let lastSignal = 0;
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      if (Date.now() - lastSignal < 500) return;
      lastSignal = Date.now();
      child.kill(signal);
    });
  }
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  child.on('error', (err) => {
    console.error(`corral: cannot run ${command}: ${err.message}`);
    process.exit(1);
  });
}

/** The Electron executable to run, or why the desktop app cannot run here. */
function desktop() {
  const noDisplay = displayMissing();
  if (noDisplay) return { why: noDisplay };
  if (!electronBinary()) {
    const failed = downloadElectron();
    if (failed) return { why: failed };
  }
  const electron = electronBinary();
  const mismatch = nativeModulesMismatch(electron);
  return mismatch ? { why: mismatch } : { electron };
}

if (!ensureBuilt()) process.exit(1);
const { electron, why } = desktop();
if (why) {
  const command = ['corral serve', ...args].join(' ');
  console.log(`corral: the desktop app is unavailable here: ${why}. Serving the web UI instead (${command}).`);
  runForeground(process.execPath, [path.join(root, 'bin', 'corral.js'), 'serve', ...args]);
} else {
  if (args.length) console.log(`corral: ${args.join(' ')}: these flags are for the "corral serve" fallback; the desktop app ignores them`);
  const env = { ...process.env };
  delete env.ELECTRON_RUN_AS_NODE;
  runForeground(electron, ['.'], env);
}
