// Runs a shell command with a timeout, its own process group (so a timeout kills its children
// too) and stdout/stderr captured up to a cap each.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { CommandOutput } from './types.js';

export const OUTPUT_CAP_BYTES = 1024 * 1024;
export const TRUNCATED_MARKER = '\n[corral: output truncated at 1 MiB]\n';

export interface RunOptions {
  cwd: string;
  env?: Record<string, string>;
  timeoutMs: number;
  uid?: number;
  gid?: number;
  capBytes?: number;
}

export interface RunResult extends CommandOutput {
  timedOut: boolean;
  signal: NodeJS.Signals | null;
}

class Capture {
  private chunks: Buffer[] = [];
  private size = 0;
  truncated = false;
  constructor(private readonly cap: number) {}
  add(chunk: Buffer): void {
    if (this.size >= this.cap) {
      this.truncated = true;
      return;
    }
    const room = this.cap - this.size;
    if (chunk.length > room) this.truncated = true;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.chunks.push(part);
    this.size += part.length;
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8') + (this.truncated ? TRUNCATED_MARKER : '');
  }
}

export function runShell(command: string, options: RunOptions): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const cap = options.capBytes ?? OUTPUT_CAP_BYTES;
    const out = new Capture(cap);
    const err = new Capture(cap);
    const child = spawn('/bin/sh', ['-c', command], {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
      ...(options.uid !== undefined ? { uid: options.uid } : {}),
      ...(options.gid !== undefined ? { gid: options.gid } : {}),
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, options.timeoutMs);
    child.stdout.on('data', (c: Buffer) => out.add(c));
    child.stderr.on('data', (c: Buffer) => err.add(c));
    child.on('error', (e) => {
      clearTimeout(timer);
      // A missing cwd surfaces as "spawn /bin/sh ENOENT"; say what is actually missing.
      reject(existsSync(options.cwd) ? e : new Error(`working directory ${options.cwd} does not exist`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ stdout: out.text(), stderr: err.text(), exit_code: code, signal, timedOut });
    });
  });
}
