import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './paths.js';

export interface RunningOrchestrator {
  url: string;
  /** The one-time setup link, when no admin exists yet. */
  setupUrl: string | null;
  dataDir: string;
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 30_000;

/**
 * Runs `corral serve` from source as a child process with its own data
 * directory, the way an operator would, and reads the address and setup link
 * from the banner it prints.
 */
export async function startOrchestrator(options: { adminKeyFile?: string } = {}): Promise<RunningOrchestrator> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'corral-e2e-'));
  const args = ['--import', 'tsx', 'orchestrator/cli/main.ts', 'serve', '--http', '--bind', '127.0.0.1', '--port', '0', '--data-dir', dataDir, '--log-level', 'warn'];
  if (options.adminKeyFile) args.push('--admin-key', options.adminKeyFile);
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    // No broadcast on the machine's real interfaces from tests: Discover probes only the targets given.
    env: { ...process.env, CORRAL_AUTH_RATE_LIMIT: '1000', CORRAL_DISCOVERY_BROADCAST: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));

  try {
    const { url, setupUrl } = await readBanner(child, () => output, !options.adminKeyFile);
    return { url, setupUrl, dataDir, stop: () => stop(child, dataDir) };
  } catch (err) {
    await stop(child, dataDir);
    throw new Error(`${(err as Error).message}\n--- orchestrator output ---\n${output}`);
  }
}

function readBanner(child: ChildProcess, output: () => string, expectSetup: boolean): Promise<{ url: string; setupUrl: string | null }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new Error('the orchestrator did not print its banner in time')), START_TIMEOUT_MS);
    const poll = setInterval(check, 50);
    child.once('exit', (code) => done(new Error(`the orchestrator exited with code ${code} before it was ready`)));

    function check() {
      const text = output();
      const url = /Corral orchestrator listening on (\S+)/.exec(text)?.[1];
      const setupUrl = /^\s*(\S+\/#\/setup\?token=\S+)\s*$/m.exec(text)?.[1] ?? null;
      if (url && (setupUrl || !expectSetup)) done(undefined, { url, setupUrl });
    }

    function done(err?: Error, value?: { url: string; setupUrl: string | null }) {
      clearTimeout(timer);
      clearInterval(poll);
      child.removeAllListeners('exit');
      if (err) reject(err);
      else resolve(value!);
    }
  });
}

async function stop(child: ChildProcess, dataDir: string): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timeout = new Promise<void>((resolve) => setTimeout(resolve, 5000).unref());
    await Promise.race([exited, timeout]);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  rmSync(dataDir, { recursive: true, force: true });
}
