#!/usr/bin/env node
// `npm test`: everything CI checks, in the order a failure is cheapest to find.
// Installs Debian's chromium for the browser tests when it can (root + apt),
// otherwise stops with a one-line instruction.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CHROMIUM = '/usr/bin/chromium';
const resultsDir = path.join(root, 'test-results');

function run(label, command, args, env = {}) {
  console.log(`\n=== ${label}: ${[command, ...args].join(' ')}`);
  const started = Date.now();
  const r = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  console.log(`=== ${label}: ${r.status === 0 ? 'ok' : `FAILED (exit ${r.status ?? r.signal})`} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return r.status === 0;
}

function ensureChromium() {
  if (existsSync(CHROMIUM)) return true;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const hasApt = spawnSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' }).status === 0;
  if (!isRoot || !hasApt) {
    console.error(`npm test needs Debian's chromium for the browser tests: run "sudo apt-get install -y chromium" and try again.`);
    return false;
  }
  console.log('Installing Debian chromium for the browser tests (apt-get)...');
  const env = { DEBIAN_FRONTEND: 'noninteractive' };
  return run('apt-get update', 'apt-get', ['update', '-q'], env) && run('install chromium', 'apt-get', ['install', '-y', '-q', 'chromium'], env);
}

// Node 20's test runner does not expand globs, so the files are listed here.
function unitTestFiles() {
  return readdirSync(path.join(root, 'test'), { recursive: true })
    .filter((f) => f.endsWith('.test.ts'))
    .sort()
    .map((f) => path.join('test', f));
}

function tapCounts(file) {
  if (!existsSync(file)) return { passed: 0, failed: 1 };
  const tap = readFileSync(file, 'utf8');
  const count = (name) => Number(new RegExp(`^# ${name} (\\d+)`, 'm').exec(tap)?.[1] ?? 0);
  return { passed: count('pass'), failed: count('fail') + count('cancelled') };
}

function playwrightCounts(file) {
  if (!existsSync(file)) return { passed: 0, failed: 1 };
  const stats = JSON.parse(readFileSync(file, 'utf8')).stats ?? {};
  return { passed: stats.expected ?? 0, failed: (stats.unexpected ?? 0) + (stats.flaky ?? 0) };
}

if (!ensureChromium()) process.exit(1);
mkdirSync(resultsDir, { recursive: true });
const tapFile = path.join(resultsDir, 'unit.tap');
const pwFile = path.join(resultsDir, 'e2e.json');
rmSync(tapFile, { force: true });
rmSync(pwFile, { force: true });

const steps = [];
const step = (label, ok) => (steps.push([label, ok]), ok);
step('build', run('build', 'npm', ['run', 'build', '--silent']));
step('typecheck', run('typecheck', 'npm', ['run', 'typecheck', '--silent']));
step('lint', run('lint', 'npm', ['run', 'lint', '--silent']));
step(
  'unit + integration',
  run('unit + integration', process.execPath, [
    '--import', 'tsx', '--test', '--test-concurrency=2',
    '--test-reporter=spec', '--test-reporter-destination=stdout',
    '--test-reporter=tap', `--test-reporter-destination=${tapFile}`,
    ...unitTestFiles(),
  ]),
);
step('e2e', run('e2e (Chromium)', 'npx', ['playwright', 'test', '--config', 'test/e2e/playwright.config.ts', '--reporter=list,json'], { PLAYWRIGHT_JSON_OUTPUT_NAME: pwFile }));

const unit = tapCounts(tapFile);
const e2e = playwrightCounts(pwFile);
console.log('\nSummary:');
for (const [label, ok] of steps) console.log(`  ${ok ? 'ok    ' : 'FAILED'} ${label}`);
console.log(`  unit + integration: ${unit.passed} passed, ${unit.failed} failed; e2e: ${e2e.passed} passed, ${e2e.failed} failed`);
const failedSteps = steps.filter(([, ok]) => !ok).length;
console.log(`${unit.passed + e2e.passed} passed, ${unit.failed + e2e.failed + (failedSteps && !(unit.failed + e2e.failed) ? failedSteps : 0)} failed`);
process.exit(failedSteps ? 1 : 0);
