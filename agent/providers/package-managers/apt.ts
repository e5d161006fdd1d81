// apt/dpkg (Debian, Ubuntu). The installed version comes from dpkg's database; the candidate
// and every known version from `apt-cache policy`, which reads the lists apt already has
// (never `apt-get update`) and, with the binary caches off, writes nothing either.
import type { CommandOutput } from '../types.js';
import type { Command } from '../run-file.js';
import { exactMatch, unexpected, type Candidates, type InstallGoal, type PackageManager } from './types.js';

const APT_ENV = { DEBIAN_FRONTEND: 'noninteractive', APT_LISTCHANGES_FRONTEND: 'none' };
/** Keep a changed conffile's local edits instead of asking (there is no terminal to ask on). */
const DPKG_OPTIONS = ['-o', 'Dpkg::Options::=--force-confdef', '-o', 'Dpkg::Options::=--force-confold'];
/** An empty path makes apt build its caches in memory instead of rewriting /var/cache/apt/*.bin. */
const NO_CACHE_FILES = ['-o', 'Dir::Cache::pkgcache=', '-o', 'Dir::Cache::srcpkgcache='];

/** Candidate, and versions that come from a repository (not only from dpkg's status file). */
export function parseAptPolicy(text: string): Candidates {
  const out: Candidates = { versions: [] };
  let current: string | undefined;
  for (const line of text.split('\n')) {
    const cand = /^\s+Candidate:\s*(\S+)/.exec(line);
    if (cand) {
      if (cand[1] !== '(none)') out.candidate = cand[1];
      continue;
    }
    const version = /^ (?:\*\*\*| {3}) (\S+) -?\d+$/.exec(line);
    if (version) {
      current = version[1];
      continue;
    }
    const source = /^ {8}-?\d+ (.+)$/.exec(line);
    if (source && current !== undefined && source[1] !== '/var/lib/dpkg/status' && !out.versions!.includes(current)) out.versions!.push(current);
  }
  return out;
}

export const apt: PackageManager = {
  name: 'apt',
  executables: ['dpkg-query', 'apt-get', 'apt-cache'],
  pinsVersions: true,

  installedCommand(name) {
    return { file: 'dpkg-query', args: ['-W', '-f=${Status}\\t${Version}\\n', name] };
  },

  parseInstalled(name, out: CommandOutput) {
    if (out.exit_code !== 0) {
      if (/no packages found matching/.test(out.stderr)) return undefined;
      throw unexpected('apt', `whether ${name} is installed`, out);
    }
    // One line per architecture; "deinstall ok config-files" is removed, not installed.
    for (const line of out.stdout.split('\n')) {
      const [status, version] = line.split('\t');
      if (status?.split(' ')[2] === 'installed' && version) return version;
    }
    return undefined;
  },

  candidateCommand(name) {
    return { file: 'apt-cache', args: [...NO_CACHE_FILES, 'policy', name] };
  },

  parseCandidate(name, out) {
    if (out.exit_code !== 0) throw unexpected('apt', `the candidate version of ${name}`, out);
    return parseAptPolicy(out.stdout);
  },

  installCommand(name, goal: InstallGoal): Command {
    const args = ['install', '-y', '--no-install-recommends', ...DPKG_OPTIONS];
    if (goal.kind === 'version') args.push('--allow-downgrades', `${name}=${goal.version}`);
    // The candidate the plan showed, so apply installs what was reviewed.
    else if (goal.kind === 'latest') args.push(`${name}=${goal.candidate}`);
    else args.push(name);
    return { file: 'apt-get', args, env: APT_ENV };
  },

  removeCommand(name) {
    return { file: 'apt-get', args: ['remove', '-y', ...DPKG_OPTIONS, name], env: APT_ENV };
  },

  versionMatches: exactMatch,
};
