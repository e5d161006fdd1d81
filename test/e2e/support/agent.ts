import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './paths.js';

export interface RunningAgent {
  nodeId: string;
  /** SHA256:... of the agent key, from the agent's own start log line. */
  keyFingerprint: string;
  stateDir: string;
  /** Everything the agent printed so far (JSON lines). */
  output(): string;
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 30_000;

/**
 * Runs `corral-agent` from source as a child process against an orchestrator, with its
 * own state directory, metrics every second and no discovery listener, and waits for
 * its "corral-agent started" log line (which carries the key fingerprint).
 */
export async function startAgent(options: { orchestratorUrl: string; nodeId: string; metricsIntervalS?: number }): Promise<RunningAgent> {
  const stateDir = mkdtempSync(path.join(os.tmpdir(), 'corral-e2e-agent-'));
  const args = [
    '--import',
    'tsx',
    'agent/main.ts',
    '--orchestrator',
    options.orchestratorUrl,
    '--state-dir',
    stateDir,
    '--node-id',
    options.nodeId,
    '--metrics-interval',
    String(options.metricsIntervalS ?? 1),
    '--discovery-port',
    '0',
  ];
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  try {
    const keyFingerprint = await waitForStart(child, () => output);
    return { nodeId: options.nodeId, keyFingerprint, stateDir, output: () => output, stop: () => stop(child, stateDir) };
  } catch (err) {
    await stop(child, stateDir);
    throw new Error(`${(err as Error).message}\n--- agent output ---\n${output}`);
  }
}

function waitForStart(child: ChildProcess, output: () => string): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new Error('the agent did not log its start in time')), START_TIMEOUT_MS);
    const poll = setInterval(check, 50);
    child.once('exit', (code) => done(new Error(`the agent exited with code ${code} before it started`)));

    function check() {
      for (const line of output().split('\n')) {
        if (!line.startsWith('{')) continue;
        try {
          const entry = JSON.parse(line) as { msg?: string; key_fingerprint?: string };
          if (entry.msg?.startsWith('corral-agent started') && entry.key_fingerprint) return done(undefined, entry.key_fingerprint);
        } catch {
          // a partial line; the next poll sees it whole
        }
      }
    }

    function done(err?: Error, fingerprint?: string) {
      clearTimeout(timer);
      clearInterval(poll);
      child.removeAllListeners('exit');
      if (err) reject(err);
      else resolve(fingerprint!);
    }
  });
}

async function stop(child: ChildProcess, stateDir: string): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timeout = new Promise<void>((resolve) => setTimeout(resolve, 5000).unref());
    await Promise.race([exited, timeout]);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  rmSync(stateDir, { recursive: true, force: true });
}
