// Runs a small helper program (hostname, systemd-detect-virt, ...) with a short time
// limit. Never throws: a missing or hanging tool only means a value stays unknown.
import { execFile } from 'node:child_process';

export interface RunResult {
  /** Exit code; some tools answer through stdout with a non-zero code (systemd-detect-virt says "none" with 1). */
  code: number;
  stdout: string;
}

export function run(file: string, args: string[], timeoutMs = 1000): Promise<RunResult | null> {
  return new Promise((resolve) => {
    try {
      execFile(file, args, { timeout: timeoutMs, maxBuffer: 64 * 1024, encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } }, (err, stdout) => {
        if (!err) return resolve({ code: 0, stdout });
        const code = (err as NodeJS.ErrnoException & { code?: unknown }).code;
        // A number is the program's exit code; a string (ENOENT, ...) or a kill (timeout) means no answer.
        if (typeof code === 'number' && !err.killed) return resolve({ code, stdout });
        resolve(null);
      });
    } catch {
      resolve(null);
    }
  });
}
