// Homebrew (macOS, Linuxbrew). HOMEBREW_NO_AUTO_UPDATE keeps every brew command from first
// running `brew update`, so the candidate is what the local formula data says.
import type { CommandOutput } from '../types.js';
import { exactMatch, unexpected, type InstallGoal, type PackageManager } from './types.js';

const BREW_ENV = { HOMEBREW_NO_AUTO_UPDATE: '1', HOMEBREW_NO_ANALYTICS: '1', HOMEBREW_NO_ENV_HINTS: '1' };
const UNKNOWN = /No (available|such) (formula|cask|keg)|No formulae or casks found|not installed/i;

interface BrewInfo {
  formulae?: { versions?: { stable?: string }; revision?: number }[];
  casks?: { version?: string }[];
}

/** `brew info --json=v2`: a formula's stable version (with its _revision), else a cask's. */
export function parseBrewInfo(text: string): string | undefined {
  const info = JSON.parse(text) as BrewInfo;
  const formula = info.formulae?.[0];
  if (formula?.versions?.stable) return formula.revision ? `${formula.versions.stable}_${formula.revision}` : formula.versions.stable;
  return info.casks?.[0]?.version;
}

export const brew: PackageManager = {
  name: 'brew',
  executables: ['brew'],
  pinsVersions: false,

  installedCommand(name) {
    return { file: 'brew', args: ['list', '--versions', name], env: BREW_ENV };
  },

  parseInstalled(name, out: CommandOutput) {
    // Exit 1 and no output: not installed.
    const words = out.stdout.trim().split(/\s+/);
    if (words[0] === name && words.length > 1) return words.at(-1);
    if (out.stdout.trim() === '' && (out.stderr.trim() === '' || UNKNOWN.test(out.stderr))) return undefined;
    throw unexpected('brew', `whether ${name} is installed`, out);
  },

  candidateCommand(name) {
    return { file: 'brew', args: ['info', '--json=v2', name], env: BREW_ENV };
  },

  parseCandidate(name, out) {
    if (out.exit_code !== 0) {
      if (UNKNOWN.test(out.stderr)) return {};
      throw unexpected('brew', `the candidate version of ${name}`, out);
    }
    return { candidate: parseBrewInfo(out.stdout) };
  },

  installCommand(name, goal: InstallGoal) {
    if (goal.kind === 'latest' && goal.installed) return { file: 'brew', args: ['upgrade', name], env: BREW_ENV };
    return { file: 'brew', args: ['install', name], env: BREW_ENV };
  },

  removeCommand(name) {
    return { file: 'brew', args: ['uninstall', name], env: BREW_ENV };
  },

  versionMatches: exactMatch,
};
