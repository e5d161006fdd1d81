// Which package manager this machine uses: the first whose executables are all on PATH,
// in an order where the native one wins (a Debian box with Homebrew installed is still apt).
// Looked up once per agent process; nothing is run to find out.
import { onPath } from '../run-file.js';
import { apk } from './apk.js';
import { apt } from './apt.js';
import { brew } from './brew.js';
import { pacman } from './pacman.js';
import { dnf, yum } from './rpm.js';
import type { PackageManager, PackageManagerName } from './types.js';

export const PACKAGE_MANAGER_ORDER: readonly PackageManager[] = [apt, dnf, yum, apk, pacman, brew];

export function managerNamed(name: string): PackageManager {
  const m = PACKAGE_MANAGER_ORDER.find((x) => x.name === name);
  if (!m) throw new Error(`unknown package manager "${name}" (one of ${PACKAGE_MANAGER_ORDER.map((x) => x.name).join(', ')})`);
  return m;
}

/** The first manager whose executables all pass `present`. */
export function detectPackageManager(present: (exe: string) => boolean): PackageManager | undefined {
  return PACKAGE_MANAGER_ORDER.find((m) => m.executables.every(present));
}

let detected: PackageManager | null | undefined;

/** `forced` is the resource's `manager` property; it must be installed too. */
export function packageManagerFor(forced: string | undefined): PackageManager {
  if (forced !== undefined) {
    const m = managerNamed(forced);
    const missing = m.executables.filter((e) => !onPath(e));
    if (missing.length > 0) throw new Error(`package manager ${m.name} was asked for, but ${missing.join(', ')} is not installed on this machine`);
    return m;
  }
  if (detected === undefined) detected = detectPackageManager((e) => onPath(e)) ?? null;
  if (detected === null) throw new Error(`no supported package manager found on this machine (looked for ${PACKAGE_MANAGER_ORDER.map((m) => m.name).join(', ')})`);
  return detected;
}

export type { PackageManager, PackageManagerName };
