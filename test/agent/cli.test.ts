// corral-agent as a child process: the command line, exit codes, JSON logs, signals.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { FakeHub } from './support/fake-hub.js';
import { removeDir, tempDir } from './support/temp.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const MAIN = path.join(ROOT, 'agent', 'main.ts');

function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('CORRAL_') && !k.startsWith('NODE_TEST')) env[k] = v;
  return { ...env, ...extra };
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(args: string[], env = cleanEnv()): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('corral-agent command', () => {
  let dir: string;
  before(() => (dir = tempDir()));
  after(() => removeDir(dir));

  it('prints help', async () => {
    const r = await run(['--help']);
    assert.equal(r.code, 0);
    for (const flag of ['--orchestrator', '--fingerprint', '--node-id', '--state-dir', '--metrics-interval', '--discovery-port', '--config', '--log-level']) assert.ok(r.stdout.includes(flag), flag);
  });

  it('exits 2 with one line on bad flags and settings', async () => {
    const cases: [string[], RegExp][] = [
      [['--nope'], /Unknown option '--nope'/],
      [['--metrics-interval', 'often', '--state-dir', dir], /--metrics-interval: must be a number/],
      [['--orchestrator', 'https://orch:7390', '--state-dir', dir], /needs the orchestrator's certificate fingerprint/],
      [['--discovery-port', '0', '--state-dir', dir], /no orchestrator is configured and discovery is off/],
      [['stray-argument'], /positional/i],
    ];
    const results = await Promise.all(cases.map(([args]) => run(args)));
    results.forEach((r, i) => {
      const [args, pattern] = cases[i]!;
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      const lines = r.stderr.trim().split('\n');
      assert.equal(lines.length, 1, r.stderr);
      assert.match(lines[0]!, /^corral-agent: /);
      assert.match(lines[0]!, pattern);
    });
  });

  it('runs, links, logs JSON lines to stdout, and stops cleanly on SIGTERM', async () => {
    const hub = await FakeHub.start({ status: 'accepted' });
    try {
      const stateDir = path.join(dir, 'run');
      const child = spawn(process.execPath, ['--import', 'tsx', MAIN, '--orchestrator', hub.url, '--state-dir', stateDir, '--node-id', 'child-agent', '--discovery-port', '0'], {
        cwd: ROOT,
        env: cleanEnv({ CORRAL_AGENT_METRICS_INTERVAL: '1' }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      await hub.waitUntil(() => hub.all('metrics').length > 0, 15_000, 'metrics from the child agent');
      assert.equal(hub.last!.auth!.node_id, 'child-agent');
      assert.equal(hub.last!.signatureOk, true);
      child.kill('SIGTERM');
      assert.equal(await exited, 0);
      const lines = stdout.trim().split('\n').map((l) => JSON.parse(l) as { msg: string; name: string });
      assert.ok(lines.every((l) => l.name === 'corral-agent'));
      assert.ok(lines.some((l) => l.msg === 'corral-agent started'));
      assert.ok(lines.some((l) => l.msg === 'corral-agent stopped'));
      assert.ok(!stdout.includes('PRIVATE KEY'));
    } finally {
      await hub.close();
    }
  });
});
