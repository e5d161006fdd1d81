import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { after, beforeEach, describe, it } from 'node:test';
import { fileProvider } from '../../../agent/providers/file.js';
import { isRoot, tempRoot, type TempRoot } from './support.js';

describe('file provider', () => {
  let t: TempRoot;
  const roots: TempRoot[] = [];
  beforeEach(() => {
    t = tempRoot();
    roots.push(t);
  });
  after(() => roots.forEach((r) => r.cleanup()));

  it('creates a missing file with content and mode, atomically, then reads as unchanged', async () => {
    const props = { path: '/motd', content: 'hello\n', mode: '0640' };
    const current = await fileProvider.read(props, t.ctx);
    assert.equal(current.exists, false);
    const d = fileProvider.diff(props, current);
    assert.equal(d.changed, true);
    assert.deepEqual(d.diff.properties.ensure, { before: 'absent', after: 'present' });
    assert.match(d.diff.content!, /\+hello/);
    await fileProvider.converge(props, current, t.ctx);
    assert.equal(readFileSync(t.real('/motd'), 'utf8'), 'hello\n');
    assert.equal(statSync(t.real('/motd')).mode & 0o7777, 0o640);
    assert.deepEqual(readdirSync(t.dir), ['motd'], 'no temp file is left behind');
    const again = fileProvider.diff(props, await fileProvider.read(props, t.ctx));
    assert.equal(again.changed, false);
  });

  it('shows changed contents as a unified diff and a mode change as before/after', async () => {
    writeFileSync(t.real('/f'), 'a\nb\nc\n', { mode: 0o600 });
    const props = { path: '/f', content: 'a\nB\nc\n', mode: '0644' };
    const current = await fileProvider.read(props, t.ctx);
    const d = fileProvider.diff(props, current);
    assert.equal(d.changed, true);
    assert.match(d.diff.content!, /^--- \/f/m);
    assert.match(d.diff.content!, /^-b$/m);
    assert.match(d.diff.content!, /^\+B$/m);
    assert.deepEqual(d.diff.properties.mode, { before: '0600', after: '0644' });
    await fileProvider.converge(props, current, t.ctx);
    assert.equal(readFileSync(t.real('/f'), 'utf8'), 'a\nB\nc\n');
    assert.equal(statSync(t.real('/f')).mode & 0o7777, 0o644);
  });

  it('without content manages only existence and metadata, and keeps the mode of a rewritten file', async () => {
    writeFileSync(t.real('/keep'), 'mine', { mode: 0o600 });
    const meta = { path: '/keep', mode: '0600' };
    assert.equal(fileProvider.diff(meta, await fileProvider.read(meta, t.ctx)).changed, false);
    const props = { path: '/keep', content: 'new' };
    await fileProvider.converge(props, await fileProvider.read(props, t.ctx), t.ctx);
    assert.equal(statSync(t.real('/keep')).mode & 0o7777, 0o600);
    const empty = { path: '/empty' };
    await fileProvider.converge(empty, await fileProvider.read(empty, t.ctx), t.ctx);
    assert.equal(readFileSync(t.real('/empty'), 'utf8'), '');
  });

  it('removes a file with ensure absent, and absent on a missing file is unchanged', async () => {
    writeFileSync(t.real('/gone'), 'x');
    const props = { path: '/gone', ensure: 'absent' };
    const current = await fileProvider.read(props, t.ctx);
    assert.deepEqual(fileProvider.diff(props, current).diff.properties.ensure, { before: 'present', after: 'absent' });
    await fileProvider.converge(props, current, t.ctx);
    assert.equal(existsSync(t.real('/gone')), false);
    assert.equal(fileProvider.diff(props, await fileProvider.read(props, t.ctx)).changed, false);
  });

  it('refuses a directory or a symlink at the path at read time', async () => {
    mkdirSync(t.real('/d'));
    await assert.rejects(fileProvider.read({ path: '/d', content: 'x' }, t.ctx), /is a directory, not a file/);
    symlinkSync('/etc/hostname', t.real('/l'));
    await assert.rejects(fileProvider.read({ path: '/l', content: 'x' }, t.ctx), /symbolic link/);
  });

  it('an owner that does not exist yet shows as a change in the diff and fails at converge', async () => {
    // A user resource earlier in the same apply may create it, so read must not fail.
    writeFileSync(t.real('/x'), 'x');
    const props = { path: '/x', owner: 'no-such-user-corral' };
    const current = await fileProvider.read(props, t.ctx);
    assert.equal(fileProvider.diff(props, current).diff.properties.owner?.after, 'no-such-user-corral');
    await assert.rejects(fileProvider.converge(props, current, t.ctx), /unknown user "no-such-user-corral"/);
  });

  it('fails when the parent directory is missing (a directory resource creates it)', async () => {
    const props = { path: '/no/such/dir/f', content: 'x' };
    await assert.rejects(fileProvider.converge(props, await fileProvider.read(props, t.ctx), t.ctx), /ENOENT/);
  });

  it('refuses to change anything with a dry-run context', async () => {
    const props = { path: '/f', content: 'x' };
    const plan = t.ctx.forPlan();
    await assert.rejects(fileProvider.converge(props, await fileProvider.read(props, plan), plan), /refused during a plan/);
    assert.equal(existsSync(t.real('/f')), false);
  });

  it('changes owner and group to a real user (nobody/nogroup)', { skip: isRoot ? false : 'needs root to chown' }, async () => {
    writeFileSync(t.real('/owned'), 'x');
    const props = { path: '/owned', owner: 'nobody', group: 'nogroup' };
    const current = await fileProvider.read(props, t.ctx);
    const d = fileProvider.diff(props, current);
    assert.deepEqual(d.diff.properties.owner, { before: 'root', after: 'nobody' });
    assert.deepEqual(d.diff.properties.group, { before: 'root', after: 'nogroup' });
    await fileProvider.converge(props, current, t.ctx);
    const st = statSync(t.real('/owned'));
    assert.equal(st.uid, 65534);
    assert.equal(st.gid, 65534);
    assert.equal(fileProvider.diff(props, await fileProvider.read(props, t.ctx)).changed, false);
    // Rewriting the contents keeps the owner.
    const rewrite = { path: '/owned', content: 'y' };
    await fileProvider.converge(rewrite, await fileProvider.read(rewrite, t.ctx), t.ctx);
    assert.equal(statSync(t.real('/owned')).uid, 65534);
  });
});
