// Runs the real corral-agent (agent/main.ts through tsx) as a child process, for
// integration and end-to-end tests. Its log is JSON lines; tests wait on them.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from './spec-table.js';

export interface AgentProcessOptions {
  orchestratorUrl?: string;
  fingerprint?: string;
  nodeId?: string;
  /** Reuse a state directory (restarts keep the identity); a fresh one otherwise. */
  stateDir?: string;
  metricsIntervalS?: number;
  /** 0 (the default here) disables the discovery listener. */
  discoveryPort?: number;
  extraArgs?: string[];
  /** Extra commands to run before the agent, e.g. ['ip', 'netns', 'exec', 'ns1'] as a prefix. */
  prefix?: string[];
}

export interface AgentProcess {
  child: ChildProcess;
  nodeId: string | undefined;
  stateDir: string;
  /** SHA256:... of the agent key, from its start line. */
  keyFingerprint: string;
  output(): string;
  /** Resolves with the first log entry the predicate accepts. */
  waitForLog(predicate: (entry: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Kills it (if running) and removes a state directory it made. */
  dispose(): Promise<void>;
}

function entries(text: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      out.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // a partial line; seen whole next time
    }
  }
  return out;
}

export async function startAgentProcess(options: AgentProcessOptions = {}): Promise<AgentProcess> {
  const ownDir = !options.stateDir;
  const stateDir = options.stateDir ?? mkdtempSync(path.join(os.tmpdir(), 'corral-agent-'));
  const args = ['--import', 'tsx', path.join(REPO_ROOT, 'agent', 'main.ts'), '--state-dir', stateDir, '--discovery-port', String(options.discoveryPort ?? 0)];
  if (options.orchestratorUrl) args.push('--orchestrator', options.orchestratorUrl);
  if (options.fingerprint) args.push('--fingerprint', options.fingerprint);
  if (options.nodeId) args.push('--node-id', options.nodeId);
  args.push('--metrics-interval', String(options.metricsIntervalS ?? 1), ...(options.extraArgs ?? []));
  const [command, ...commandArgs] = [...(options.prefix ?? []), process.execPath, ...args];
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('CORRAL_') && !k.startsWith('NODE_TEST')) env[k] = v;
  const child = spawn(command!, commandArgs, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const waitForLog: AgentProcess['waitForLog'] = (predicate, timeoutMs = 20_000) =>
    new Promise((resolve, reject) => {
      const deadline = Date.now() + timeoutMs;
      const timer = setInterval(() => {
        const found = entries(out).find(predicate);
        if (found) {
          clearInterval(timer);
          resolve(found);
        } else if (Date.now() > deadline || (child.exitCode !== null && !found)) {
          clearInterval(timer);
          reject(new Error(`agent log line not seen (exit ${child.exitCode}):\n${out.slice(-4000)}`));
        }
      }, 50);
    });

  const kill = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  try {
    const started = await waitForLog((e) => typeof e.msg === 'string' && e.msg.startsWith('corral-agent started'));
    return {
      child,
      nodeId: options.nodeId,
      stateDir,
      keyFingerprint: String(started.key_fingerprint),
      output: () => out,
      waitForLog,
      kill,
      async dispose() {
        await kill('SIGKILL');
        if (ownDir) rmSync(stateDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await kill('SIGKILL');
    if (ownDir) rmSync(stateDir, { recursive: true, force: true });
    throw err;
  }
}
