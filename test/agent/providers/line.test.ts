import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { after, beforeEach, describe, it } from 'node:test';
import { editLines, lineProvider } from '../../../agent/providers/line.js';
import { tempRoot, type TempRoot } from './support.js';

describe('editLines', () => {
  it('replaces only the first matching line', () => {
    assert.equal(editLines('a=1\nb=2\na=3\n', { line: 'a=9', match: '^a=' }), 'a=9\nb=2\na=3\n');
  });
  it('appends when nothing matches, adding the missing final newline first', () => {
    assert.equal(editLines('x\ny', { line: 'z', match: '^z=' }), 'x\ny\nz\n');
    assert.equal(editLines('', { line: 'z' }), 'z\n');
  });
  it('leaves the file alone when the line is already there', () => {
    assert.equal(editLines('a\nz\n', { line: 'z' }), 'a\nz\n');
    assert.equal(editLines('a=9\n', { line: 'a=9', match: '^a=' }), 'a=9\n');
    // No match but the exact line exists elsewhere: nothing to add.
    assert.equal(editLines('z\n', { line: 'z', match: '^nomatch' }), 'z\n');
  });
  it('absent removes every matching line with match, every identical line without', () => {
    assert.equal(editLines('a=1\nb\na=2\n', { line: 'a=0', match: '^a=', ensure: 'absent' }), 'b\n');
    assert.equal(editLines('z\nb\nz\n', { line: 'z', ensure: 'absent' }), 'b\n');
    assert.equal(editLines('b\n', { line: 'z', ensure: 'absent' }), 'b\n');
    assert.equal(editLines('z\n', { line: 'z', ensure: 'absent' }), '');
  });
});

describe('line provider', () => {
  let t: TempRoot;
  const roots: TempRoot[] = [];
  beforeEach(() => {
    t = tempRoot();
    roots.push(t);
  });
  after(() => roots.forEach((r) => r.cleanup()));

  it('replaces a line in place, keeping the mode, with a unified diff, then is unchanged', async () => {
    writeFileSync(t.real('/conf'), 'port=80\nname=x\n', { mode: 0o600 });
    const props = { path: '/conf', line: 'port=8080', match: '^port=' };
    const current = await lineProvider.read(props, t.ctx);
    const d = lineProvider.diff(props, current);
    assert.equal(d.changed, true);
    assert.match(d.diff.content!, /^-port=80$/m);
    assert.match(d.diff.content!, /^\+port=8080$/m);
    await lineProvider.converge(props, current, t.ctx);
    assert.equal(readFileSync(t.real('/conf'), 'utf8'), 'port=8080\nname=x\n');
    assert.equal(statSync(t.real('/conf')).mode & 0o7777, 0o600);
    assert.equal(lineProvider.diff(props, await lineProvider.read(props, t.ctx)).changed, false);
  });

  it('creates a missing file for present; absent on a missing file is unchanged', async () => {
    const props = { path: '/new', line: 'hello' };
    const current = await lineProvider.read(props, t.ctx);
    assert.deepEqual(lineProvider.diff(props, current).diff.properties.ensure, { before: 'absent', after: 'present' });
    await lineProvider.converge(props, current, t.ctx);
    assert.equal(readFileSync(t.real('/new'), 'utf8'), 'hello\n');
    const absent = { path: '/missing', line: 'x', ensure: 'absent' };
    assert.equal(lineProvider.diff(absent, await lineProvider.read(absent, t.ctx)).changed, false);
  });

  it('removes matching lines with ensure absent', async () => {
    writeFileSync(t.real('/sudo'), 'deploy ALL=1\nroot ALL=2\ndeploy ALL=3\n');
    const props = { path: '/sudo', line: 'deploy', match: '^deploy ', ensure: 'absent' };
    await lineProvider.converge(props, await lineProvider.read(props, t.ctx), t.ctx);
    assert.equal(readFileSync(t.real('/sudo'), 'utf8'), 'root ALL=2\n');
    assert.equal(lineProvider.diff(props, await lineProvider.read(props, t.ctx)).changed, false);
  });
});
