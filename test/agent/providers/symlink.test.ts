import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdirSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { after, beforeEach, describe, it } from 'node:test';
import { symlinkProvider } from '../../../agent/providers/symlink.js';
import { tempRoot, type TempRoot } from './support.js';

describe('symlink provider', () => {
  let t: TempRoot;
  const roots: TempRoot[] = [];
  beforeEach(() => {
    t = tempRoot();
    roots.push(t);
  });
  after(() => roots.forEach((r) => r.cleanup()));

  it('creates a link, then reads as unchanged', async () => {
    const props = { path: '/link', target: '/etc/hostname' };
    const current = await symlinkProvider.read(props, t.ctx);
    assert.deepEqual(symlinkProvider.diff(props, current).diff.properties, {
      ensure: { before: 'absent', after: 'present' },
      target: { before: null, after: '/etc/hostname' },
    });
    await symlinkProvider.converge(props, current, t.ctx);
    assert.equal(readlinkSync(t.real('/link')), '/etc/hostname');
    assert.equal(symlinkProvider.diff(props, await symlinkProvider.read(props, t.ctx)).changed, false);
  });

  it('replaces a link that points elsewhere (even a dangling one)', async () => {
    symlinkSync('/nowhere', t.real('/link'));
    const props = { path: '/link', target: 'relative/target' };
    const current = await symlinkProvider.read(props, t.ctx);
    assert.deepEqual(symlinkProvider.diff(props, current).diff.properties, { target: { before: '/nowhere', after: 'relative/target' } });
    const r = await symlinkProvider.converge(props, current, t.ctx);
    assert.equal(r.message, 'retargeted');
    assert.equal(readlinkSync(t.real('/link')), 'relative/target');
  });

  it('refuses to replace a file or a directory', async () => {
    writeFileSync(t.real('/f'), 'x');
    mkdirSync(t.real('/d'));
    await assert.rejects(symlinkProvider.read({ path: '/f', target: '/x' }, t.ctx), /is a file, not a symbolic link/);
    await assert.rejects(symlinkProvider.read({ path: '/d', ensure: 'absent' }, t.ctx), /is a directory/);
    assert.equal(lstatSync(t.real('/f')).isFile(), true);
  });

  it('removes a link with ensure absent (not what it points to)', async () => {
    writeFileSync(t.real('/target'), 'keep');
    symlinkSync(t.real('/target'), t.real('/link'));
    const props = { path: '/link', ensure: 'absent' };
    const current = await symlinkProvider.read(props, t.ctx);
    assert.equal(symlinkProvider.diff(props, current).changed, true);
    await symlinkProvider.converge(props, current, t.ctx);
    assert.equal(existsSync(t.real('/link')), false);
    assert.equal(existsSync(t.real('/target')), true);
    assert.equal(symlinkProvider.diff(props, await symlinkProvider.read(props, t.ctx)).changed, false);
  });
});
