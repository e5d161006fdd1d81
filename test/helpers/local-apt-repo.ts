// A local flat apt repository of tiny .deb packages built here with dpkg-deb, so tests can
// install and remove a real package without the network and without dpkg-dev/apt-utils.
// Made for one package name with one or more versions; cleanup() purges the package and
// removes the repository, its sources entry and the lists apt made for it.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { onPath } from '../../agent/providers/run-file.js';
import { processAlive } from './child.js';

export const APT_LISTS = '/var/lib/apt/lists';

const APT_TOOLS = ['dpkg-deb', 'dpkg-query', 'apt-get', 'apt-cache'];

/** Why a real apt install cannot run here, or false when it can. */
export function aptSkipReason(): string | false {
  if (process.getuid?.() !== 0) return 'installing packages needs root';
  const missing = APT_TOOLS.filter((t) => !onPath(t));
  return missing.length > 0 ? `needs ${missing.join(', ')} (not a Debian machine)` : false;
}

export function buildDeb(dir: string, name: string, version: string): string {
  const tree = path.join(dir, `tree-${version}`);
  mkdirSync(path.join(tree, 'DEBIAN'), { recursive: true });
  mkdirSync(path.join(tree, 'usr/share', name), { recursive: true });
  writeFileSync(path.join(tree, 'usr/share', name, 'version'), `${version}\n`);
  writeFileSync(
    path.join(tree, 'DEBIAN/control'),
    `Package: ${name}\nVersion: ${version}\nArchitecture: all\nMaintainer: Corral tests <tests@corral.invalid>\nSection: misc\nPriority: optional\nDescription: Corral package provider test (safe to remove)\n`,
  );
  const deb = path.join(dir, `${name}_${version}_all.deb`);
  execFileSync('dpkg-deb', ['--root-owner-group', '--build', tree, deb], { stdio: 'pipe' });
  rmSync(tree, { recursive: true });
  return deb;
}

/** A Packages stanza written by hand, so the test does not need dpkg-dev or apt-utils. */
export function stanza(deb: string): string {
  const control = execFileSync('dpkg-deb', ['-f', deb], { encoding: 'utf8' }).trimEnd();
  const bytes = readFileSync(deb);
  return `${control}\nFilename: ./${path.basename(deb)}\nSize: ${bytes.length}\nSHA256: ${createHash('sha256').update(bytes).digest('hex')}\n`;
}

/** The installed version of a package, or undefined when it is not installed. */
export function dpkgVersion(name: string): string | undefined {
  try {
    const line = execFileSync('dpkg-query', ['-W', '-f=${Status}\t${Version}', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const [status, version] = line.split('\t');
    return status?.endsWith(' installed') ? version : undefined;
  } catch {
    return undefined;
  }
}

const APT_LOCK = path.join(os.tmpdir(), 'corral-test-apt.lock');

/**
 * Test files run two at a time; those that install packages and those that check that a
 * plan touched nothing under /var/lib/apt must not overlap. A directory made atomically is
 * the lock; one left by a dead process is taken over. Returns the release function.
 */
export function acquireAptLock(timeoutMs = 300_000): () => void {
  const deadline = Date.now() + timeoutMs;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      mkdirSync(APT_LOCK);
      writeFileSync(path.join(APT_LOCK, 'pid'), String(process.pid));
      return () => rmSync(APT_LOCK, { recursive: true, force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    let owner = NaN;
    try {
      owner = Number(readFileSync(path.join(APT_LOCK, 'pid'), 'utf8'));
    } catch {
      // being created or removed right now
    }
    if (Number.isInteger(owner) && owner !== process.pid && !processAlive(owner)) rmSync(APT_LOCK, { recursive: true, force: true });
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${APT_LOCK}`);
    Atomics.wait(pause, 0, 0, 100);
  }
}

export interface LocalAptRepo {
  name: string;
  dir: string;
  /** The sources.list.d entry that points apt at it. */
  sources: string;
  /** The apt lists before the repository was indexed (cleanup() restores them). */
  listsBefore: string[];
  /** Purges the package (if installed), removes the repository, its sources entry and its lists. */
  cleanup(): void;
}

/** Builds the packages, writes the index and a sources entry, and indexes only this repository. */
export function createLocalAptRepo(name: string, versions: readonly string[]): LocalAptRepo {
  const release = acquireAptLock();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'corral-apt-repo-'));
  const sources = `/etc/apt/sources.list.d/${name}.list`;
  const listsBefore = readdirSync(APT_LISTS).sort();
  const cleanup = () => {
    try {
      execFileSync('dpkg', ['--purge', name], { stdio: 'ignore' });
    } catch {
      // not installed
    }
    rmSync(sources, { force: true });
    for (const f of readdirSync(APT_LISTS)) if (!listsBefore.includes(f) && f.includes(path.basename(dir))) rmSync(path.join(APT_LISTS, f), { force: true });
    rmSync(dir, { recursive: true, force: true });
    release();
  };
  try {
    // apt reads file: repositories as its sandbox user when it can; let it.
    chmodSync(dir, 0o755);
    const debs = versions.map((v) => buildDeb(dir, name, v));
    writeFileSync(path.join(dir, 'Packages'), debs.map(stanza).join('\n'));
    writeFileSync(sources, `deb [trusted=yes] file:${dir} ./\n`);
    // Index only this repository: no network, and the other lists are left as they are.
    execFileSync('apt-get', ['update', '-o', `Dir::Etc::sourcelist=${sources}`, '-o', 'Dir::Etc::sourceparts=-', '-o', 'APT::Get::List-Cleanup=0'], { stdio: 'pipe' });
  } catch (err) {
    cleanup();
    throw err;
  }
  return { name, dir, sources, listsBefore, cleanup };
}
