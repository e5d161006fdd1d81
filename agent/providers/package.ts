// package: name, ensure (present, absent, latest or an exact version), manager (detected
// when not given). read() asks the manager's database and its local package index only:
// a plan never refreshes the index, so `latest` means the newest version this machine
// already knows about, and apply installs exactly the candidate the plan showed.
import { managerNamed, packageManagerFor } from './package-managers/detect.js';
import { checkName, checkVersion, type InstallGoal, type PackageManager, type PackageManagerName } from './package-managers/types.js';
import { display, failure, runFile, type Command } from './run-file.js';
import { ConvergeError, optStr, str, type ConvergeResult, type DiffResult, type Props, type Provider, type ResourceDiff } from './types.js';

const READ_TIMEOUT_MS = 120_000;
/** Installing pulls dependencies over the network; a big one takes a while. */
const CHANGE_TIMEOUT_MS = 30 * 60_000;

export interface PackageState {
  manager: PackageManagerName;
  /** The installed version; absent when the package is not installed. */
  installed?: string;
  /** What an install would pick, read from the local index only when a change may need it. */
  candidate?: string;
}

type Wanted = { kind: 'absent' } | { kind: 'present' } | { kind: 'latest' } | { kind: 'version'; version: string };

function wanted(props: Props): Wanted {
  const ensure = optStr(props, 'ensure') ?? 'present';
  if (ensure === 'absent' || ensure === 'present' || ensure === 'latest') return { kind: ensure };
  return { kind: 'version', version: checkVersion(ensure) };
}

function query(cmd: Command) {
  return runFile(cmd, READ_TIMEOUT_MS);
}

/** Whether the installed version is what `want` asks for, before looking at candidates. */
function settled(m: PackageManager, want: Wanted, installed: string | undefined): boolean {
  if (want.kind === 'absent') return true;
  if (want.kind === 'present') return installed !== undefined;
  if (want.kind === 'version') return installed !== undefined && m.versionMatches(installed, want.version);
  return false;
}

function goalOf(want: Wanted, current: PackageState): InstallGoal {
  if (want.kind === 'version') return want;
  if (want.kind === 'latest' && current.candidate !== undefined) return { kind: 'latest', candidate: current.candidate, installed: current.installed !== undefined };
  return { kind: 'present' };
}

async function change(m: PackageManager, cmd: Command): Promise<ConvergeResult> {
  const out = await runFile(cmd, CHANGE_TIMEOUT_MS);
  if (out.exit_code !== 0) throw new ConvergeError(failure(m.name, cmd, out).message, out);
  return { output: out };
}

export const packageProvider: Provider<PackageState> = {
  type: 'package',

  async read(props) {
    const name = checkName(str(props, 'name'));
    const want = wanted(props);
    const m = packageManagerFor(optStr(props, 'manager'));
    const installed = m.parseInstalled(name, await query(m.installedCommand(name)));
    const state: PackageState = { manager: m.name, ...(installed !== undefined ? { installed } : {}) };
    if (settled(m, want, installed)) return state;

    const c = m.parseCandidate(name, await query(m.candidateCommand(name)));
    if (c.candidate !== undefined) state.candidate = c.candidate;
    const known = c.candidate !== undefined || (c.versions?.length ?? 0) > 0;
    if (!known && installed === undefined) {
      throw new Error(`${m.name} has no package "${name}" in its local package index (plans never refresh the index; refresh it on the machine if the package is new)`);
    }
    if (want.kind === 'version') {
      if (c.versions && c.versions.length > 0 && !c.versions.some((v) => m.versionMatches(v, want.version))) {
        throw new Error(`${m.name} has no version ${want.version} of "${name}" in its local package index (it has ${c.versions.join(', ')})`);
      }
      if (!m.pinsVersions && !(c.candidate !== undefined && m.versionMatches(c.candidate, want.version))) {
        throw new Error(`${m.name} can only install the version in its package database (${c.candidate ?? 'none'}), not ${want.version}`);
      }
    }
    return state;
  },

  diff(desired, current): DiffResult {
    const name = str(desired, 'name');
    const want = wanted(desired);
    const diff: ResourceDiff = { properties: {} };
    const p = diff.properties;
    const have = current.installed;
    if (want.kind === 'absent') {
      if (have === undefined) return { changed: false, diff };
      p.ensure = { before: 'present', after: 'absent' };
      p.version = { before: have, after: null };
      return { changed: true, diff, message: `would remove ${name} ${have}` };
    }
    // undefined: nothing to do; null: install whatever the manager picks.
    let target: string | null | undefined;
    if (want.kind === 'version') {
      if (!versionOk(current, want.version)) target = want.version;
    } else if (want.kind === 'latest') {
      if (have === undefined || (current.candidate !== undefined && !versionOk(current, current.candidate))) target = current.candidate ?? null;
    } else if (have === undefined) {
      target = current.candidate ?? null;
    }
    if (target === undefined) return { changed: false, diff };
    if (have === undefined) p.ensure = { before: 'absent', after: 'present' };
    p.version = { before: have ?? null, after: target };
    if (have === undefined) return { changed: true, diff, message: `would install ${name}${target !== null ? ` ${target}` : ''}` };
    return { changed: true, diff, message: `would ${want.kind === 'latest' ? 'upgrade' : 'change'} ${name} from ${have} to ${target}` };
  },

  async converge(desired, current, ctx) {
    const name = checkName(str(desired, 'name'));
    const m = managerNamed(current.manager);
    const want = wanted(desired);
    if (want.kind === 'absent') {
      const cmd = m.removeCommand(name);
      ctx.mutating(display(cmd));
      const done = await change(m, cmd);
      await verify(m, name, (v) => v === undefined, 'still installed', done);
      return { ...done, message: `removed ${current.installed ?? ''}`.trim() };
    }
    const goal = goalOf(want, current);
    const cmd = m.installCommand(name, goal);
    ctx.mutating(display(cmd));
    const done = await change(m, cmd);
    const expected = goal.kind === 'version' ? goal.version : goal.kind === 'latest' ? goal.candidate : undefined;
    const now = await verify(m, name, (v) => v !== undefined && (expected === undefined || m.versionMatches(v, expected)), expected ? `not at ${expected}` : 'not installed', done);
    return { ...done, message: current.installed === undefined ? `installed ${now}` : `changed ${current.installed} -> ${now}` };
  },
};

/** The diff needs the manager's idea of a matching version (an rpm version may omit the release). */
function versionOk(current: PackageState, wantedVersion: string): boolean {
  return current.installed !== undefined && managerNamed(current.manager).versionMatches(current.installed, wantedVersion);
}

/** A manager that exits 0 without doing the job (a held package, a no-op) is a failure too. */
async function verify(m: PackageManager, name: string, ok: (v: string | undefined) => boolean, problem: string, done: ConvergeResult): Promise<string> {
  const v = m.parseInstalled(name, await query(m.installedCommand(name)));
  if (!ok(v)) throw new ConvergeError(`${m.name} exited 0 but ${name} is ${problem} (installed: ${v ?? 'none'})`, done.output);
  return v ?? '';
}
