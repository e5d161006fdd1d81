// Runs a program with an argument array (never a shell, so a package or unit name cannot
// smuggle in a command), a timeout, and both streams captured. A non-zero exit is a result,
// not an error: the package and service managers use exit codes to answer questions.
import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import type { CommandOutput } from './types.js';

export interface Command {
  file: string;
  args: string[];
  /** Added to the agent's environment. */
  env?: Record<string, string>;
}

const MAX_BUFFER = 16 * 1024 * 1024;

/** Rejects only when the program could not be started (not installed) or timed out. */
export function runFile(cmd: Command, timeoutMs: number): Promise<CommandOutput> {
  return new Promise((resolve, reject) => {
    // LC_ALL=C: the parsers read English field names ("Candidate:", "Version :").
    const env = { ...process.env, LC_ALL: 'C', ...cmd.env };
    execFile(cmd.file, cmd.args, { env, timeout: timeoutMs, maxBuffer: MAX_BUFFER, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      if (!err) return resolve({ stdout, stderr, exit_code: 0 });
      const e = err as NodeJS.ErrnoException & { code?: number | string; killed?: boolean };
      if (e.code === 'ENOENT') return reject(new Error(`${cmd.file} is not installed on this machine`));
      if (e.killed) return reject(new Error(`${display(cmd)} timed out after ${timeoutMs / 1000} s and was killed`));
      resolve({ stdout, stderr, exit_code: typeof e.code === 'number' ? e.code : null });
    });
  });
}

/** The command as a person would type it (for messages only; never executed). */
export function display(cmd: Command): string {
  return [cmd.file, ...cmd.args].join(' ');
}

/** The last lines of a program's stderr (or stdout when stderr is empty), for an error message. */
export function tail(r: CommandOutput, maxLines = 8): string {
  const text = (r.stderr.trim() || r.stdout.trim()).split('\n').slice(-maxLines).join('\n');
  return text.length > 2000 ? text.slice(-2000) : text;
}

/** An error naming who failed, how, and what it said. */
export function failure(who: string, cmd: Command, r: CommandOutput): Error {
  const said = tail(r);
  return new Error(`${who}: ${display(cmd)} exited ${r.exit_code ?? 'on a signal'}${said ? `: ${said}` : ''}`);
}

/** Whether an executable of this name is on PATH (no process is started). */
export function onPath(name: string, searchPath = process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin'): boolean {
  for (const dir of searchPath.split(':')) {
    if (!dir) continue;
    try {
      accessSync(path.join(dir, name), constants.X_OK);
      return true;
    } catch {
      // not in this directory
    }
  }
  return false;
}
