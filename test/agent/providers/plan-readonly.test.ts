// The key promise: a plan of every built type changes nothing. The temp root is snapshotted
// (paths, kinds, modes, owners, sizes, mtimes, ctimes, contents, link targets) before and after;
// script bodies would leave a marker; their guards did run (they log outside the snapshot).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { defaultRegistry, plan, type EngineResource } from '../../../agent/providers/index.js';
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
    const coveredTypes = new Set(resources.map((r) => r.type));
    assert.deepEqual([...coveredTypes].sort(), defaultRegistry().types().sort(), 'every built type is in the plan');

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
});
