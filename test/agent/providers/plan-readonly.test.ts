// The key promise: a plan of every built type changes nothing. The temp root is snapshotted
// (paths, kinds, modes, owners, sizes, mtimes, ctimes, contents, link targets) before and after;
// script bodies would leave a marker; their guards did run (they log outside the snapshot).
// package and service act on the machine itself, not the root: their plans are checked
// against the package database, apt's lists and caches, and the services' states.
import { acquireAptLock } from '../../helpers/local-apt-repo.js';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { defaultRegistry, plan, type EngineResource } from '../../../agent/providers/index.js';
import { onPath } from '../../../agent/providers/run-file.js';
import { fakeEtc, isRoot, snapshot, tempRoot, type TempRoot } from './support.js';

/** Processes whose parent is this test process (a plan must leave none behind). */
function childPids(): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid) out.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

/** Types planned against the machine itself, in the cases after the first. */
const MACHINE_TYPES = ['package', 'service'];

/** Size, mtime and ctime of every path under these directories (package databases are too big to read). */
function statSnapshot(dirs: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (p: string): void => {
    const st = lstatSync(p, { bigint: true });
    out[p] = `${st.size} ${st.mtimeNs} ${st.ctimeNs}`;
    if (st.isDirectory()) for (const e of readdirSync(p)) walk(path.join(p, e));
  };
  for (const d of dirs) if (existsSync(d)) walk(d);
  return out;
}

const aptHere = ['dpkg-query', 'apt-get', 'apt-cache'].every((e) => onPath(e));

/** A package apt knows but this machine does not have, so a plan would install it. */
function uninstalledAptPackage(): string | undefined {
  for (const name of ['hello', 'sl', 'cowsay', 'figlet']) {
    const status = (() => {
      try {
        return execFileSync('dpkg-query', ['-W', '-f=${Status}', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
      } catch {
        return '';
      }
    })();
    if (status.endsWith(' installed')) continue;
    const policy = execFileSync('apt-cache', ['policy', name], { encoding: 'utf8' });
    if (/Candidate: (?!\(none\))/.test(policy)) return name;
  }
  return undefined;
}

const serviceManagerRuns = existsSync('/run/systemd/system') || (onPath('rc-service') && existsSync('/run/openrc'));

describe('plan is read-only', () => {
  let t: TempRoot;
  let outside: string;
  before(() => {
    t = tempRoot();
    outside = mkdtempSync(path.join(os.tmpdir(), 'corral-guards-'));
  });
  after(() => {
    t.cleanup();
    rmSync(outside, { recursive: true, force: true });
  });

  it('leaves the file system and process table as they were and runs no script body, only guards', async () => {
    const w = t.real;
    fakeEtc(t);
    mkdirSync(w('/etc/app'), { recursive: true, mode: 0o755 });
    writeFileSync(w('/etc/app/app.conf'), 'port=80\n', { mode: 0o600 });
    writeFileSync(w('/etc/app/old.conf'), 'old\n');
    writeFileSync(w('/etc/app/lines'), 'a=1\nremove me\n');
    mkdirSync(w('/var/www'), { recursive: true, mode: 0o700 });
    mkdirSync(w('/var/cache/junk'), { recursive: true });
    writeFileSync(w('/var/cache/junk/x'), 'x');
    symlinkSync('/wrong', w('/etc/app/current'));
    symlinkSync('/gone', w('/etc/app/stale'));
    const guardLog = path.join(outside, 'guards.log');
    const marker = (name: string) => w(`/markers/${name}`);
    const body = (name: string) => `mkdir -p ${w('/markers')} && touch ${marker(name)}`;
    const logGuard = (name: string, exit: number) => `echo ${name} >> ${guardLog}; exit ${exit}`;

    const resources: EngineResource[] = [
      { id: 'new-file', type: 'file', properties: { path: '/etc/app/new.conf', content: 'new\n', mode: '0644' } },
      { id: 'changed-file', type: 'file', properties: { path: '/etc/app/app.conf', content: 'port=8080\n', mode: '0644' }, notify: ['reload'] },
      { id: 'absent-file', type: 'file', properties: { path: '/etc/app/old.conf', ensure: 'absent' } },
      { id: 'new-dir', type: 'directory', properties: { path: '/srv/a/b', mode: '0750' } },
      { id: 'dir-mode', type: 'directory', properties: { path: '/var/www', mode: '0755' } },
      { id: 'absent-dir', type: 'directory', properties: { path: '/var/cache/junk', ensure: 'absent', recurse: true } },
      { id: 'new-link', type: 'symlink', properties: { path: '/etc/app/link', target: '/etc/app/app.conf' } },
      { id: 'wrong-link', type: 'symlink', properties: { path: '/etc/app/current', target: '/etc/app/app.conf' } },
      { id: 'absent-link', type: 'symlink', properties: { path: '/etc/app/stale', ensure: 'absent' } },
      { id: 'replace-line', type: 'line', properties: { path: '/etc/app/lines', line: 'a=2', match: '^a=' } },
      { id: 'absent-line', type: 'line', properties: { path: '/etc/app/lines', line: 'remove me', ensure: 'absent' } },
      { id: 'new-line-file', type: 'line', properties: { path: '/etc/app/created-by-line', line: 'x' } },
      { id: 'unguarded', type: 'script', properties: { run: body('unguarded') } },
      { id: 'unless', type: 'script', properties: { run: body('unless'), unless: logGuard('unless', 1) } },
      { id: 'check', type: 'script', properties: { run: body('check'), check: logGuard('check', 0) } },
      { id: 'creates', type: 'script', properties: { run: body('creates'), creates: '/markers/creates' } },
      { id: 'new-group', type: 'group', properties: { name: 'web', gid: 3001 } },
      { id: 'absent-group', type: 'group', properties: { name: 'users', ensure: 'absent' } },
      { id: 'new-user', type: 'user', properties: { name: 'deploy', uid: 2001, gid: 'web', groups: ['adm'], home: '/home/deploy' } },
      { id: 'reload', type: 'script', properties: { run: body('reload'), unless: logGuard('reload-unless', 0) } },
    ];
    if (isRoot) {
      resources.push({ id: 'owned-file', type: 'file', properties: { path: '/etc/app/app.conf', owner: 'nobody', group: 'nogroup' } });
      resources.push({ id: 'owned-dir', type: 'directory', properties: { path: '/var/www', owner: 'nobody', group: 'nogroup' } });
    }
    const coveredTypes = new Set([...resources.map((r) => r.type), ...MACHINE_TYPES]);
    assert.deepEqual([...coveredTypes].sort(), defaultRegistry().types().sort(), 'every built type is in a plan here');

    const before = snapshot(t.dir);
    const childrenBefore = childPids();
    const results = await plan(resources, t.ctx);
    assert.deepEqual(snapshot(t.dir), before, 'the plan changed the file system');
    assert.deepEqual(childPids(), childrenBefore, 'the plan left processes behind');

    for (const name of ['unguarded', 'unless', 'check', 'creates', 'reload']) assert.equal(existsSync(marker(name)), false, `the body of ${name} ran`);
    assert.equal(readFileSync(guardLog, 'utf8'), 'unless\ncheck\nreload-unless\n', 'every guard ran once');

    const failed = results.filter((r) => r.status === 'would_fail');
    assert.deepEqual(failed, []);
    const status = Object.fromEntries(results.map((r) => [r.resource_id, r.status]));
    for (const r of resources) assert.equal(status[r.id], 'would_change', `${r.id} should be would_change`);
    const byId = Object.fromEntries(results.map((r) => [r.resource_id, r]));
    assert.match(byId['changed-file']!.diff!.content!, /^-port=80$/m);
    assert.deepEqual(byId['changed-file']!.diff!.properties.mode, { before: '0600', after: '0644' });
    assert.deepEqual(byId['wrong-link']!.diff!.properties.target, { before: '/wrong', after: '/etc/app/app.conf' });
    assert.equal(byId.unguarded!.message, 'would run (no guard)');
    assert.match(byId.reload!.message!, /would re-run \(notified by changed-file\)/);
  });

  it('a package plan installs, removes and refreshes nothing', async () => {
    const watched = ['/var/lib/dpkg', '/var/lib/apt', '/var/cache/apt', '/etc/apt', '/var/lib/rpm', '/lib/apk/db', '/var/lib/pacman'];
    const resources: EngineResource[] = [{ id: 'unknown', type: 'package', properties: { name: `corral-no-such-package-${process.pid}` } }];
    const expected: Record<string, string> = { unknown: 'would_fail' };
    if (aptHere) {
      const candidate = uninstalledAptPackage();
      if (candidate !== undefined) {
        resources.push({ id: 'install', type: 'package', properties: { name: candidate } });
        expected.install = 'would_change';
      }
      // dpkg is on every Debian machine: a plan to remove it must leave it be.
      resources.push({ id: 'remove', type: 'package', properties: { name: 'dpkg', ensure: 'absent' } });
      expected.remove = 'would_change';
      resources.push({ id: 'latest', type: 'package', properties: { name: 'dpkg', ensure: 'latest' } });
    }
    // Other test files install packages; none may do so while this one watches apt's files.
    const release = acquireAptLock();
    let before: ReturnType<typeof statSnapshot>;
    let after: ReturnType<typeof statSnapshot>;
    const childrenBefore = childPids();
    let results: Awaited<ReturnType<typeof plan>>;
    try {
      before = statSnapshot(watched);
      results = await plan(resources, t.ctx);
      after = statSnapshot(watched);
    } finally {
      release();
    }
    assert.deepEqual(after, before, 'the plan changed the package database, lists or caches');
    assert.deepEqual(childPids(), childrenBefore, 'the plan left processes behind');
    const byId = Object.fromEntries(results.map((r) => [r.resource_id, r]));
    for (const [id, status] of Object.entries(expected)) assert.equal(byId[id]!.status, status, `${id}: ${byId[id]!.message}`);
    assert.match(byId.unknown!.message!, /has no package|no supported package manager/);
    if (aptHere) {
      assert.notEqual(byId.latest!.status, 'would_fail', byId.latest!.message);
      assert.match(byId.remove!.message!, /^would remove dpkg /);
      assert.match(execFileSync('dpkg-query', ['-W', '-f=${Status}', 'dpkg'], { encoding: 'utf8' }), / installed$/);
    }
  });

  it('a service plan on a machine with no running service manager fails cleanly and changes nothing', { skip: serviceManagerRuns ? 'a service manager runs here (the next case covers it)' : false }, async () => {
    const watched = ['/etc/systemd/system', '/run/systemd', '/etc/init.d', '/etc/runlevels'];
    const before = statSnapshot(watched);
    const childrenBefore = childPids();
    const results = await plan([{ id: 'svc', type: 'service', properties: { name: 'cron', state: 'running', enabled: true } }], t.ctx);
    assert.deepEqual(statSnapshot(watched), before);
    assert.deepEqual(childPids(), childrenBefore);
    assert.equal(results[0]!.status, 'would_fail');
    assert.match(results[0]!.message!, /^no service manager is running on this machine/);
  });

  it('a service plan leaves a running service running', { skip: serviceManagerRuns ? false : 'no service manager is running on this machine (systemd is not PID 1), so no service can be planned against' }, async () => {
    const systemd = existsSync('/run/systemd/system');
    // Any service this machine has: journald under systemd, the first in the default runlevel under OpenRC.
    const name = systemd ? 'systemd-journald' : (execFileSync('rc-update', ['show', 'default'], { encoding: 'utf8' }).split('|')[0] ?? '').trim();
    const active = () => {
      try {
        return systemd ? execFileSync('systemctl', ['is-active', name], { encoding: 'utf8' }).trim() : execFileSync('rc-service', [name, 'status'], { encoding: 'utf8' }).trim();
      } catch {
        return 'not running';
      }
    };
    const was = active();
    const results = await plan([{ id: 'svc', type: 'service', properties: { name, state: 'stopped' } }], t.ctx);
    assert.equal(active(), was, 'the plan stopped it');
    assert.notEqual(results[0]!.status, 'would_fail', results[0]!.message);
  });
});
