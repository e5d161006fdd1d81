// Runs the real `corral` CLI (orchestrator/cli/main.ts through tsx) as a child process.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from './spec-table.js';

export const CLI_MAIN = path.join(REPO_ROOT, 'orchestrator', 'cli', 'main.ts');

/** An environment without the caller's CORRAL_* settings and ssh-agent. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('CORRAL_') && k !== 'SSH_AUTH_SOCK' && !k.startsWith('NODE_TEST')) env[k] = v;
  // Tests never broadcast on the machine's real interfaces.
  env.CORRAL_DISCOVERY_BROADCAST = 'false';
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `corral ARGS...` to completion. */
export function runCli(args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI_MAIN, ...args], { cwd: REPO_ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

export interface ServeChild {
  child: ChildProcess;
  url: string;
  output(): string;
  /** Sends the signal and waits for the process to end. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts `corral serve ARGS...` and waits for its "listening on URL" line. */
export function startServe(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 20_000, prefix: string[] = []): Promise<ServeChild> {
  return new Promise((resolve, reject) => {
    const [command, ...rest] = [...prefix, process.execPath, '--import', 'tsx', CLI_MAIN, 'serve', ...args];
    const child = spawn(command!, rest, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`corral serve did not start in ${timeoutMs} ms:\n${out}`));
    }, timeoutMs);
    const onData = (d: Buffer) => {
      out += d.toString();
      const match = /Corral orchestrator listening on (\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({
          child,
          url: match[1]!,
          output: () => out,
          async kill(signal = 'SIGTERM') {
            if (child.exitCode === null && child.signalCode === null) child.kill(signal);
            await exited;
          },
        });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`corral serve exited (${code ?? signal}) before listening:\n${out}`));
    });
  });
}

/** Whether a process of this pid exists (signal 0 checks without sending anything). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
