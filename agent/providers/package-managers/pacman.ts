// pacman (Arch). The candidate is what the local sync database says (-Si reads it, never
// refreshes it); pacman can only install that version, so an exact version must equal it.
import type { CommandOutput } from '../types.js';
import { exactMatch, unexpected, type PackageManager } from './types.js';

const NOT_FOUND = /was not found/;

export const pacman: PackageManager = {
  name: 'pacman',
  executables: ['pacman'],
  pinsVersions: false,

  installedCommand(name) {
    return { file: 'pacman', args: ['-Q', name] };
  },

  parseInstalled(name, out: CommandOutput) {
    if (out.exit_code !== 0) {
      if (NOT_FOUND.test(out.stderr)) return undefined;
      throw unexpected('pacman', `whether ${name} is installed`, out);
    }
    const [pkg, version] = out.stdout.trim().split(/\s+/);
    return pkg === name ? version : undefined;
  },

  candidateCommand(name) {
    return { file: 'pacman', args: ['-Si', name] };
  },

  parseCandidate(name, out) {
    if (out.exit_code !== 0) {
      if (NOT_FOUND.test(out.stderr)) return {};
      throw unexpected('pacman', `the candidate version of ${name}`, out);
    }
    // Several repositories may carry it; pacman installs from the first.
    return { candidate: /^Version\s*:\s*(\S+)/m.exec(out.stdout)?.[1] };
  },

  installCommand(name) {
    return { file: 'pacman', args: ['-S', '--noconfirm', '--needed', name] };
  },

  removeCommand(name) {
    return { file: 'pacman', args: ['-R', '--noconfirm', name] };
  },

  versionMatches: exactMatch,
};
