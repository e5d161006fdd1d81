// dnf and yum (Fedora, RHEL and relatives). rpm answers what is installed; the candidate
// comes from the metadata already on disk (-C: cache only, so a plan never downloads it).
import type { CommandOutput } from '../types.js';
import { unexpected, type Candidates, type InstallGoal, type PackageManager } from './types.js';

/** epoch:version-release, the epoch only when set (how dnf spells versions). */
const RPM_QF = '%|EPOCH?{%{EPOCH}:}:{}|%{VERSION}-%{RELEASE}\\n';

/** `dnf repoquery --qf %{epoch}:...` prints "0:" for no epoch; rpm leaves it out. */
function dropZeroEpoch(v: string): string {
  return v.replace(/^0:/, '');
}

/** `yum list NAME`: the last version under "Available Packages", else the installed one. */
export function parseYumList(name: string, text: string): string | undefined {
  let section = '';
  let installed: string | undefined;
  let available: string | undefined;
  for (const line of text.split('\n')) {
    if (/^(Installed|Available|Updated) Packages/.test(line)) {
      section = line.split(' ')[0]!;
      continue;
    }
    const [pkg, version] = line.trim().split(/\s+/);
    if (!pkg?.startsWith(`${name}.`) || !version) continue;
    if (section === 'Installed') installed = version;
    else available = version;
  }
  return available ?? installed;
}

function rpmManager(tool: 'dnf' | 'yum'): PackageManager {
  const spec = (name: string, version: string) => `${name}-${version}`;
  return {
    name: tool,
    executables: [tool, 'rpm'],
    pinsVersions: true,

    installedCommand(name) {
      return { file: 'rpm', args: ['-q', '--qf', RPM_QF, name] };
    },

    parseInstalled(name, out: CommandOutput) {
      if (out.exit_code !== 0) {
        if (/is not installed/.test(out.stdout + out.stderr)) return undefined;
        throw unexpected(tool, `whether ${name} is installed`, out);
      }
      // Several lines for multilib (x86_64 and i686); they carry the same version.
      return out.stdout.split('\n')[0]?.trim() || undefined;
    },

    candidateCommand(name) {
      if (tool === 'dnf') return { file: 'dnf', args: ['-C', '-q', 'repoquery', '--latest-limit=1', '--qf', '%{epoch}:%{version}-%{release}\\n', name] };
      return { file: 'yum', args: ['-C', '-q', 'list', name] };
    },

    parseCandidate(name, out): Candidates {
      if (tool === 'yum') {
        // yum exits 1 with "No matching Packages" for a name it does not know.
        if (out.exit_code !== 0 && !/No matching Packages/i.test(out.stderr + out.stdout)) throw unexpected(tool, `the candidate version of ${name}`, out);
        return { candidate: parseYumList(name, out.stdout) };
      }
      if (out.exit_code !== 0) throw unexpected(tool, `the candidate version of ${name}`, out);
      const line = out.stdout.split('\n').find((l) => l.trim() !== '');
      return { candidate: line ? dropZeroEpoch(line.trim()) : undefined };
    },

    installCommand(name, goal: InstallGoal) {
      // dnf install NAME-VERSION goes up or down to that version; yum only goes up.
      if (goal.kind === 'version') return { file: tool, args: ['install', '-y', spec(name, goal.version)] };
      if (goal.kind === 'latest') return { file: tool, args: ['install', '-y', spec(name, goal.candidate)] };
      return { file: tool, args: ['install', '-y', name] };
    },

    removeCommand(name) {
      return { file: tool, args: ['remove', '-y', name] };
    },

    /** "1.24.0" matches "1.24.0-1.el9": a wanted version may leave out the release and epoch. */
    versionMatches(installed, wanted) {
      return [installed, installed.replace(/^\d+:/, '')].some((v) => v === wanted || v.startsWith(`${wanted}-`));
    },
  };
}

export const dnf = rpmManager('dnf');
export const yum = rpmManager('yum');
