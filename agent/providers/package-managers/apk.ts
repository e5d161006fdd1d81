// apk (Alpine). `apk info -e -v` prints NAME-VERSION for an installed package and nothing
// otherwise; the candidate comes from `apk policy` on the indexes already on disk.
import type { CommandOutput } from '../types.js';
import { exactMatch, unexpected, type Candidates, type InstallGoal, type PackageManager } from './types.js';

/** `apk policy NAME`: versions as "  1.2.3-r0:" lines, oldest first, each followed by its sources. */
export function parseApkPolicy(text: string): Candidates {
  const versions: string[] = [];
  let current: string | undefined;
  for (const line of text.split('\n')) {
    const v = /^ {2}(\S+):$/.exec(line);
    if (v) {
      current = v[1];
      continue;
    }
    // A version only in the installed database is not one apk could install again.
    const source = /^ {4}(\S.*)$/.exec(line);
    if (source && current !== undefined && !source[1]!.includes('lib/apk/db/installed') && !versions.includes(current)) versions.push(current);
  }
  return { candidate: versions.at(-1), versions };
}

export const apk: PackageManager = {
  name: 'apk',
  executables: ['apk'],
  pinsVersions: true,

  installedCommand(name) {
    return { file: 'apk', args: ['info', '-e', '-v', name] };
  },

  parseInstalled(name, out: CommandOutput) {
    const line = out.stdout.split('\n')[0]?.trim() ?? '';
    if (line.startsWith(`${name}-`)) return line.slice(name.length + 1);
    if (line === '' && out.stderr.trim() === '') return undefined;
    throw unexpected('apk', `whether ${name} is installed`, out);
  },

  candidateCommand(name) {
    return { file: 'apk', args: ['--no-network', 'policy', name] };
  },

  parseCandidate(name, out) {
    if (out.exit_code !== 0) throw unexpected('apk', `the candidate version of ${name}`, out);
    return parseApkPolicy(out.stdout);
  },

  installCommand(name, goal: InstallGoal) {
    // NAME=VERSION also pins it in /etc/apk/world, which is what asking for a version means;
    // latest must not pin, or the next `apk upgrade` would keep the old one.
    if (goal.kind === 'version') return { file: 'apk', args: ['add', `${name}=${goal.version}`] };
    if (goal.kind === 'latest') return { file: 'apk', args: ['add', '--upgrade', name] };
    return { file: 'apk', args: ['add', name] };
  },

  removeCommand(name) {
    return { file: 'apk', args: ['del', name] };
  },

  versionMatches: exactMatch,
};
