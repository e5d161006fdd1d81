// What the package provider needs from a package manager: commands built by pure functions
// (unit-tested without the manager installed) and parsers for what those commands print.
import type { PACKAGE_MANAGERS } from '../../../common/modules/index.js';
import type { CommandOutput } from '../types.js';
import { tail, type Command } from '../run-file.js';

export type PackageManagerName = (typeof PACKAGE_MANAGERS)[number];

/** What converge asks for: any version, this exact one, or the newest the local cache knows. */
export type InstallGoal = { kind: 'present' } | { kind: 'version'; version: string } | { kind: 'latest'; candidate: string; installed: boolean };

export interface Candidates {
  /** The version an install would pick; undefined when the local cache has no such package. */
  candidate?: string;
  /** Every version the cache knows, when the manager lists them (apt). */
  versions?: string[];
}

export interface PackageManager {
  readonly name: PackageManagerName;
  /** Executables that must all be on PATH for this manager to be used. */
  readonly executables: readonly string[];
  /** Whether install can pick a version other than the candidate (pacman and brew cannot). */
  readonly pinsVersions: boolean;
  /** Reads the installed version. Never changes anything. */
  installedCommand(name: string): Command;
  /** The installed version, or undefined when not installed; throws on any other failure. */
  parseInstalled(name: string, out: CommandOutput): string | undefined;
  /** Reads the candidate from the local cache only: no index refresh, no network. */
  candidateCommand(name: string): Command;
  parseCandidate(name: string, out: CommandOutput): Candidates;
  installCommand(name: string, goal: InstallGoal): Command;
  removeCommand(name: string): Command;
  /** Whether an installed version satisfies a wanted exact version. */
  versionMatches(installed: string, wanted: string): boolean;
}

/** Names as the managers allow them (Debian policy is the strictest common shape plus "_" and "@"). */
export const PACKAGE_NAME = /^[A-Za-z0-9][A-Za-z0-9.+_@-]{0,127}$/;
/** The same shape the module validator accepts; epochs ("2:") and "~" included. */
export const PACKAGE_VERSION = /^[A-Za-z0-9][A-Za-z0-9.+:~_-]{0,127}$/;

export function checkName(name: string): string {
  if (!PACKAGE_NAME.test(name)) throw new Error(`"${name}" is not a valid package name`);
  return name;
}

export function checkVersion(version: string): string {
  if (!PACKAGE_VERSION.test(version)) throw new Error(`"${version}" is not a valid package version`);
  return version;
}

/** An error for a read whose output made no sense. */
export function unexpected(manager: string, what: string, out: CommandOutput): Error {
  const said = tail(out);
  return new Error(`${manager}: could not read ${what} (exit ${out.exit_code ?? 'on a signal'})${said ? `: ${said}` : ''}`);
}

export const exactMatch = (installed: string, wanted: string): boolean => installed === wanted;
