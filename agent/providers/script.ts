// script: `run` with /bin/sh -c, guards `creates` (skip when the path exists), `unless` (skip
// when it exits 0) and `check` (run only when it exits 0, like Puppet's onlyif), timeout, env,
// cwd, user. read() runs the guards only, never `run`; with no guard the script always runs.
// A notify re-runs `run` ignoring the guards (a handler script is usually guarded so that it
// does nothing on its own, e.g. `unless: "true"`).
import { forgetAccounts } from './fs-util.js';
import { existsSync } from 'node:fs';
import type { ProviderContext } from './context.js';
import { userAccount } from './fs-util.js';
import { runShell, type RunOptions, type RunResult } from './run-command.js';
import { ConvergeError, optStr, str, type ConvergeResult, type DiffResult, type Props, type Provider } from './types.js';

export const DEFAULT_TIMEOUT_S = 300;

export interface ScriptState {
  willRun: boolean;
  /** Why it would run or not, e.g. "unless exited 0". */
  reason: string;
  guards: { creates?: boolean; unless?: number | null; check?: number | null };
}

async function runOptions(props: Props, ctx: ProviderContext): Promise<RunOptions> {
  const timeout = props.timeout ?? DEFAULT_TIMEOUT_S;
  if (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout < 1) throw new Error('timeout must be a whole number of seconds');
  const env: Record<string, string> = {};
  const given = props.env;
  if (given !== undefined) {
    if (typeof given !== 'object' || Array.isArray(given)) throw new Error('env must be a map');
    for (const [k, v] of Object.entries(given)) env[k] = String(v);
  }
  const options: RunOptions = { cwd: ctx.path(optStr(props, 'cwd') ?? '/'), env, timeoutMs: timeout * 1000 };
  const user = optStr(props, 'user');
  if (user !== undefined) {
    const account = await userAccount(user);
    if (account.uid !== process.getuid?.()) {
      if (process.getuid?.() !== 0) throw new Error(`cannot run as "${user}": the agent is not root`);
      options.uid = account.uid;
      options.gid = account.gid;
    }
    // The account's HOME/USER/LOGNAME unless env sets them.
    for (const [k, v] of Object.entries({ HOME: account.home, USER: account.name, LOGNAME: account.name })) env[k] ??= v;
  }
  return options;
}

async function guard(name: string, command: string, options: RunOptions): Promise<number | null> {
  const r = await runShell(command, options);
  if (r.timedOut) throw new Error(`guard "${name}" timed out after ${options.timeoutMs / 1000} s`);
  return r.exit_code;
}

function outcome(r: RunResult, timeoutMs: number): ConvergeResult {
  const output = { stdout: r.stdout, stderr: r.stderr, exit_code: r.exit_code };
  if (r.timedOut) throw new ConvergeError(`timed out after ${timeoutMs / 1000} s and was killed`, output);
  if (r.exit_code !== 0) throw new ConvergeError(r.exit_code === null ? `killed by ${r.signal ?? 'a signal'}` : `exited ${r.exit_code}`, output);
  return { message: 'ran (exit 0)', output };
}

/** A script may add or change accounts (useradd in a script): cached entries are forgotten after it. */
async function ranScript(command: string, options: Awaited<ReturnType<typeof runOptions>>) {
  try {
    return await runShell(command, options);
  } finally {
    forgetAccounts();
  }
}

export const scriptProvider: Provider<ScriptState> = {
  type: 'script',

  async read(props, ctx) {
    str(props, 'run');
    const options = await runOptions(props, ctx);
    const guards: ScriptState['guards'] = {};
    const creates = optStr(props, 'creates');
    if (creates !== undefined) {
      guards.creates = existsSync(ctx.path(creates));
      if (guards.creates) return { willRun: false, reason: `creates: ${creates} exists`, guards };
    }
    const unless = optStr(props, 'unless');
    if (unless !== undefined) {
      guards.unless = await guard('unless', unless, options);
      if (guards.unless === 0) return { willRun: false, reason: 'unless exited 0', guards };
    }
    const check = optStr(props, 'check');
    if (check !== undefined) {
      guards.check = await guard('check', check, options);
      if (guards.check !== 0) return { willRun: false, reason: `check exited ${guards.check ?? 'on a signal'}`, guards };
    }
    const reason = creates === undefined && unless === undefined && check === undefined ? 'no guard' : 'guards passed';
    return { willRun: true, reason, guards };
  },

  diff(desired, current): DiffResult {
    if (!current.willRun) return { changed: false, diff: { properties: {} }, message: current.reason };
    return { changed: true, diff: { properties: { run: { before: null, after: str(desired, 'run') } } }, message: `would run (${current.reason})` };
  },

  async converge(desired, _current, ctx) {
    ctx.mutating(`run script`);
    const options = await runOptions(desired, ctx);
    return outcome(await ranScript(str(desired, 'run'), options), options.timeoutMs);
  },

  async refresh(desired, ctx) {
    ctx.mutating(`re-run script`);
    const options = await runOptions(desired, ctx);
    return outcome(await ranScript(str(desired, 'run'), options), options.timeoutMs);
  },
};
