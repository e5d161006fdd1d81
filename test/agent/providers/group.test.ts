import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { pino } from 'pino';
import { after, beforeEach, describe, it } from 'node:test';
import { groupProvider } from '../../../agent/providers/group.js';
import { ProviderContext } from '../../../agent/providers/index.js';
import { fakeEtc, isRoot, tempRoot, type TempRoot } from './support.js';

const needsRoot = isRoot ? false : 'groupadd needs root';

describe('group provider (under a root prefix)', { skip: needsRoot }, () => {
  let t: TempRoot;
  const roots: TempRoot[] = [];
  beforeEach(() => {
    t = tempRoot();
    roots.push(t);
    fakeEtc(t);
  });
  after(() => roots.forEach((r) => r.cleanup()));

  it('creates a group with a gid, changes the gid, removes it; each then reads as unchanged', async () => {
    const props = { name: 'www', gid: 3001 };
    const current = await groupProvider.read(props, t.ctx);
    assert.deepEqual(groupProvider.diff(props, current).diff.properties, { ensure: { before: 'absent', after: 'present' }, gid: { before: null, after: 3001 } });
    await groupProvider.converge(props, current, t.ctx);
    assert.match(readFileSync(t.real('/etc/group'), 'utf8'), /^www:x:3001:$/m);
    assert.equal(groupProvider.diff(props, await groupProvider.read(props, t.ctx)).changed, false);

    const moved = { name: 'www', gid: 3002 };
    const c2 = await groupProvider.read(moved, t.ctx);
    assert.deepEqual(groupProvider.diff(moved, c2).diff.properties, { gid: { before: 3001, after: 3002 } });
    await groupProvider.converge(moved, c2, t.ctx);
    assert.match(readFileSync(t.real('/etc/group'), 'utf8'), /^www:x:3002:$/m);

    const gone = { name: 'www', ensure: 'absent' };
    await groupProvider.converge(gone, await groupProvider.read(gone, t.ctx), t.ctx);
    assert.doesNotMatch(readFileSync(t.real('/etc/group'), 'utf8'), /^www:/m);
    assert.equal(groupProvider.diff(gone, await groupProvider.read(gone, t.ctx)).changed, false);
  });

  it('without a gid only existence is managed', async () => {
    const props = { name: 'plain', system: true };
    await groupProvider.converge(props, await groupProvider.read(props, t.ctx), t.ctx);
    assert.match(readFileSync(t.real('/etc/group'), 'utf8'), /^plain:x:\d+:$/m);
    assert.equal(groupProvider.diff(props, await groupProvider.read(props, t.ctx)).changed, false);
  });

  it('refuses at read time a gid that another group holds', async () => {
    await assert.rejects(groupProvider.read({ name: 'www', gid: 100 }, t.ctx), /gid 100 already belongs to group "users"/);
  });
});

describe('group provider (on this machine, cleaned up)', { skip: needsRoot }, () => {
  const name = `corral-t${process.pid}`;
  const ctx = new ProviderContext({ logger: pino({ level: 'silent' }) });
  after(() => {
    try {
      execFileSync('groupdel', [name], { stdio: 'ignore' });
    } catch {
      // already gone
    }
  });

  it('creates and removes a real group', async () => {
    const props = { name };
    await groupProvider.converge(props, await groupProvider.read(props, ctx), ctx);
    assert.equal(execFileSync('getent', ['group', name], { encoding: 'utf8' }).split(':')[0], name);
    assert.equal(groupProvider.diff(props, await groupProvider.read(props, ctx)).changed, false);
    const gone = { name, ensure: 'absent' };
    await groupProvider.converge(gone, await groupProvider.read(gone, ctx), ctx);
    assert.equal(groupProvider.diff(gone, await groupProvider.read(gone, ctx)).changed, false);
  });
});
