import assert from 'node:assert/strict';
import { chmodSync, existsSync, lstatSync, mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { after, beforeEach, describe, it } from 'node:test';
import { directoryProvider } from '../../../agent/providers/directory.js';
import { isRoot, tempRoot, type TempRoot } from './support.js';

describe('directory provider', () => {
  let t: TempRoot;
  const roots: TempRoot[] = [];
  beforeEach(() => {
    t = tempRoot();
    roots.push(t);
  });
  after(() => roots.forEach((r) => r.cleanup()));

  it('creates a directory with its parents and the exact mode (not filtered by the umask)', async () => {
    const props = { path: '/a/b/c', mode: '0775' };
    const current = await directoryProvider.read(props, t.ctx);
    const d = directoryProvider.diff(props, current);
    assert.deepEqual(d.diff.properties, { ensure: { before: 'absent', after: 'present' }, mode: { before: null, after: '0775' } });
    await directoryProvider.converge(props, current, t.ctx);
    assert.equal(statSync(t.real('/a/b/c')).isDirectory(), true);
    assert.equal(statSync(t.real('/a/b/c')).mode & 0o7777, 0o775);
    assert.equal(directoryProvider.diff(props, await directoryProvider.read(props, t.ctx)).changed, false);
  });

  it('fixes the mode of an existing directory', async () => {
    mkdirSync(t.real('/d'), { mode: 0o700 });
    const props = { path: '/d', mode: '0755' };
    const current = await directoryProvider.read(props, t.ctx);
    assert.deepEqual(directoryProvider.diff(props, current).diff.properties, { mode: { before: '0700', after: '0755' } });
    await directoryProvider.converge(props, current, t.ctx);
    assert.equal(statSync(t.real('/d')).mode & 0o7777, 0o755);
  });

  it('removes an empty directory, refuses a non-empty one without recurse, removes it with recurse', async () => {
    mkdirSync(t.real('/e'));
    const empty = { path: '/e', ensure: 'absent' };
    await directoryProvider.converge(empty, await directoryProvider.read(empty, t.ctx), t.ctx);
    assert.equal(existsSync(t.real('/e')), false);

    mkdirSync(t.real('/full'));
    writeFileSync(t.real('/full/x'), 'x');
    const full = { path: '/full', ensure: 'absent' };
    await assert.rejects(directoryProvider.converge(full, await directoryProvider.read(full, t.ctx), t.ctx), /not empty/);
    assert.equal(existsSync(t.real('/full/x')), true);
    const recurse = { ...full, recurse: true };
    await directoryProvider.converge(recurse, await directoryProvider.read(recurse, t.ctx), t.ctx);
    assert.equal(existsSync(t.real('/full')), false);
    assert.equal(directoryProvider.diff(recurse, await directoryProvider.read(recurse, t.ctx)).changed, false);
  });

  it('refuses a file at the path', async () => {
    writeFileSync(t.real('/f'), 'x');
    await assert.rejects(directoryProvider.read({ path: '/f' }, t.ctx), /not a directory/);
  });

  it('with recurse, sets the mode of every subdirectory and leaves files their own', async () => {
    mkdirSync(t.real('/r/a/b'), { recursive: true });
    chmodSync(t.real('/r/a'), 0o700);
    chmodSync(t.real('/r/a/b'), 0o700);
    writeFileSync(t.real('/r/a/file'), 'x', { mode: 0o600 });
    const props = { path: '/r', mode: '0750', recurse: true };
    const current = await directoryProvider.read(props, t.ctx);
    const d = directoryProvider.diff(props, current);
    assert.equal(d.changed, true);
    assert.match(String(d.diff.properties.recurse!.before), /^2 entries below differ: /);
    assert.equal(statSync(t.real('/r/a')).mode & 0o7777, 0o700, 'reading changed nothing');
    await directoryProvider.converge(props, current, t.ctx);
    assert.equal(statSync(t.real('/r')).mode & 0o7777, 0o750);
    assert.equal(statSync(t.real('/r/a')).mode & 0o7777, 0o750);
    assert.equal(statSync(t.real('/r/a/b')).mode & 0o7777, 0o750);
    assert.equal(statSync(t.real('/r/a/file')).mode & 0o7777, 0o600, 'files keep their mode');
    assert.equal(directoryProvider.diff(props, await directoryProvider.read(props, t.ctx)).changed, false);
  });

  it('changes owner and group to nobody/nogroup', { skip: isRoot ? false : 'needs root to chown' }, async () => {
    mkdirSync(t.real('/o'));
    const props = { path: '/o', owner: 'nobody', group: 'nogroup' };
    const current = await directoryProvider.read(props, t.ctx);
    assert.deepEqual(directoryProvider.diff(props, current).diff.properties.owner, { before: 'root', after: 'nobody' });
    await directoryProvider.converge(props, current, t.ctx);
    assert.equal(statSync(t.real('/o')).uid, 65534);
    assert.equal(statSync(t.real('/o')).gid, 65534);
    assert.equal(directoryProvider.diff(props, await directoryProvider.read(props, t.ctx)).changed, false);
  });

  it('with recurse, gives everything below the owner and group, links included and not followed', { skip: isRoot ? false : 'needs root to chown' }, async () => {
    mkdirSync(t.real('/tree/sub'), { recursive: true });
    writeFileSync(t.real('/tree/sub/file'), 'x');
    writeFileSync(t.real('/outside'), 'x');
    symlinkSync(t.real('/outside'), t.real('/tree/link'));
    const props = { path: '/tree', owner: 'nobody', group: 'nogroup', recurse: true };
    await directoryProvider.converge(props, await directoryProvider.read(props, t.ctx), t.ctx);
    for (const p of ['/tree', '/tree/sub', '/tree/sub/file']) assert.deepEqual([statSync(t.real(p)).uid, statSync(t.real(p)).gid], [65534, 65534], p);
    assert.equal(lstatSync(t.real('/tree/link')).uid, 65534, 'the link itself');
    assert.equal(statSync(t.real('/outside')).uid, 0, 'what it points to is not followed');
    assert.equal(directoryProvider.diff(props, await directoryProvider.read(props, t.ctx)).changed, false);
  });
});
