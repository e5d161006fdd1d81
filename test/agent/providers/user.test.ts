import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { pino } from 'pino';
import { after, beforeEach, describe, it } from 'node:test';
import { ProviderContext } from '../../../agent/providers/index.js';
import { userProvider } from '../../../agent/providers/user.js';
import { fakeEtc, isRoot, tempRoot, type TempRoot } from './support.js';

const needsRoot = isRoot ? false : 'useradd needs root';

describe('user provider (under a root prefix)', { skip: needsRoot }, () => {
  let t: TempRoot;
  const roots: TempRoot[] = [];
  beforeEach(() => {
    t = tempRoot();
    roots.push(t);
    fakeEtc(t);
  });
  after(() => roots.forEach((r) => r.cleanup()));

  it('creates a user with uid, primary group, groups, home and shell, then reads as unchanged', async () => {
    const props = { name: 'deploy', uid: 2001, gid: 'users', groups: ['web', 'adm'], home: '/home/deploy', shell: '/bin/bash' };
    const current = await userProvider.read(props, t.ctx);
    const d = userProvider.diff(props, current);
    assert.deepEqual(d.diff.properties.ensure, { before: 'absent', after: 'present' });
    assert.deepEqual(d.diff.properties.groups, { before: null, after: ['adm', 'web'] });
    await userProvider.converge(props, current, t.ctx);
    assert.match(readFileSync(t.real('/etc/passwd'), 'utf8'), /^deploy:x:2001:100::\/home\/deploy:\/bin\/bash$/m);
    assert.match(readFileSync(t.real('/etc/group'), 'utf8'), /^web:x:3000:deploy$/m);
    assert.equal(existsSync(t.real('/home/deploy')), true, 'the home directory is created');
    const again = userProvider.diff(props, await userProvider.read(props, t.ctx));
    assert.deepEqual(again.diff.properties, {});
  });

  it('changes only what differs: shell and the exact group list', async () => {
    const base = { name: 'app', groups: ['web'], shell: '/bin/sh', system: true };
    await userProvider.converge(base, await userProvider.read(base, t.ctx), t.ctx);
    const next = { name: 'app', groups: ['adm'], shell: '/bin/bash' };
    const current = await userProvider.read(next, t.ctx);
    assert.deepEqual(userProvider.diff(next, current).diff.properties, {
      groups: { before: ['web'], after: ['adm'] },
      shell: { before: '/bin/sh', after: '/bin/bash' },
    });
    await userProvider.converge(next, current, t.ctx);
    assert.equal(userProvider.diff(next, await userProvider.read(next, t.ctx)).changed, false);
    assert.doesNotMatch(readFileSync(t.real('/etc/group'), 'utf8'), /^web:x:3000:app$/m);
  });

  it('a primary group that does not exist yet is a change, not a read failure', async () => {
    const props = { name: 'later', gid: 'not-yet' };
    const current = await userProvider.read(props, t.ctx);
    assert.deepEqual(userProvider.diff(props, current).diff.properties.gid, { before: null, after: 'not-yet' });
    await assert.rejects(userProvider.converge(props, current, t.ctx), /useradd failed/);
  });

  it('refuses a uid held by another user, and removes a user', async () => {
    await assert.rejects(userProvider.read({ name: 'x', uid: 0 }, t.ctx), /uid 0 already belongs to user "root"/);
    const props = { name: 'tmp', system: true };
    await userProvider.converge(props, await userProvider.read(props, t.ctx), t.ctx);
    const gone = { name: 'tmp', ensure: 'absent' };
    const current = await userProvider.read(gone, t.ctx);
    assert.equal(userProvider.diff(gone, current).changed, true);
    await userProvider.converge(gone, current, t.ctx);
    assert.equal(userProvider.diff(gone, await userProvider.read(gone, t.ctx)).changed, false);
  });
});

describe('user provider (on this machine, cleaned up)', { skip: needsRoot }, () => {
  const name = `corral-u${process.pid}`;
  const ctx = new ProviderContext({ logger: pino({ level: 'silent' }) });
  after(() => {
    for (const [tool, arg] of [['userdel', name], ['groupdel', name]] as const) {
      try {
        execFileSync(tool, [arg], { stdio: 'ignore' });
      } catch {
        // already gone
      }
    }
  });

  it('creates and removes a real system user', async () => {
    const props = { name, system: true, shell: '/usr/sbin/nologin' };
    await userProvider.converge(props, await userProvider.read(props, ctx), ctx);
    assert.equal(execFileSync('getent', ['passwd', name], { encoding: 'utf8' }).trim().split(':')[6], '/usr/sbin/nologin');
    assert.equal(userProvider.diff(props, await userProvider.read(props, ctx)).changed, false);
    const gone = { name, ensure: 'absent' };
    await userProvider.converge(gone, await userProvider.read(gone, ctx), ctx);
    assert.equal(userProvider.diff(gone, await userProvider.read(gone, ctx)).changed, false);
  });
});
