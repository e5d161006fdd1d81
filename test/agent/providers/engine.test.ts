import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { after, beforeEach, describe, it } from 'node:test';
import { apply, defaultRegistry, dependencyOrder, plan, ProviderRegistry, type EngineResource } from '../../../agent/providers/index.js';
import { fileProvider } from '../../../agent/providers/file.js';
import { scriptProvider } from '../../../agent/providers/script.js';
import type { Provider } from '../../../agent/providers/types.js';
import { tempRoot, type TempRoot } from './support.js';

const r = (id: string, type: EngineResource['type'], properties: EngineResource['properties'], extra: Partial<EngineResource> = {}): EngineResource => ({ id, type, properties, ...extra });

describe('provider registry', () => {
  it('refuses a second provider for the same type', () => {
    const reg = new ProviderRegistry().register(fileProvider);
    assert.throws(() => reg.register(fileProvider), /already registered/);
  });
  it('registers the built types only', () => {
    assert.deepEqual(defaultRegistry().types().sort(), ['directory', 'file', 'group', 'line', 'package', 'script', 'service', 'symlink', 'user']);
  });
});

describe('dependencyOrder', () => {
  it('puts requirements first and keeps the given order otherwise', () => {
    const order = dependencyOrder([r('a', 'file', {}, { requires: ['c'] }), r('b', 'file', {}), r('c', 'file', {})]).map((x) => x.id);
    assert.deepEqual(order, ['c', 'a', 'b']);
  });
  it('names a cycle', () => {
    assert.throws(() => dependencyOrder([r('a', 'file', {}, { requires: ['b'] }), r('b', 'file', {}, { requires: ['a'] })]), /cycle: a -> b -> a/);
  });
});

describe('apply and plan', () => {
  let t: TempRoot;
  const roots: TempRoot[] = [];
  beforeEach(() => {
    t = tempRoot();
    roots.push(t);
  });
  after(() => roots.forEach((x) => x.cleanup()));

  it('applies in dependency order, and shows a module that manages one file twice as changed each time', async () => {
    const resources = [
      r('conf', 'file', { path: '/etc/app/app.conf', content: 'port=80\n', mode: '0644' }, { requires: ['dir'] }),
      r('dir', 'directory', { path: '/etc/app', mode: '0755' }),
      r('port', 'line', { path: '/etc/app/app.conf', line: 'port=8080', match: '^port=' }, { requires: ['conf'] }),
      r('link', 'symlink', { path: '/etc/app/current', target: 'app.conf' }, { requires: ['dir'] }),
      r('seed', 'script', { run: `echo seeded > ${t.real('/etc/app/seeded')}`, creates: '/etc/app/seeded' }, { requires: ['dir'] }),
    ];
    const first = await apply(resources, t.ctx);
    assert.deepEqual(
      first.map((x) => [x.resource_id, x.status]),
      [['dir', 'changed'], ['conf', 'changed'], ['port', 'changed'], ['link', 'changed'], ['seed', 'changed']],
    );
    assert.ok(first.every((x) => typeof x.duration_ms === 'number'));
    assert.match(first[1]!.diff!.content!, /\+port=80/);
    // `conf` writes port=80 and `port` edits it to 8080: a module that manages one file twice
    // fights itself, and the engine reports that on every run instead of hiding it.
    const second = await apply(resources, t.ctx);
    const changed = second.filter((x) => x.status !== 'unchanged').map((x) => x.resource_id);
    assert.deepEqual(changed, ['conf', 'port']);
  });

  it('a second apply of a coherent module is all unchanged, and the plan after it too', async () => {
    const resources = [
      r('dir', 'directory', { path: '/srv/site', mode: '0750' }),
      r('index', 'file', { path: '/srv/site/index.html', content: '<h1>hi</h1>\n', mode: '0640' }, { requires: ['dir'] }),
      r('hosts', 'line', { path: '/srv/hosts', line: '127.0.0.1 site', match: 'site$' }),
      r('link', 'symlink', { path: '/srv/current', target: '/srv/site' }, { requires: ['dir'] }),
      r('seed', 'script', { run: `touch ${t.real('/srv/site/.seeded')}`, creates: '/srv/site/.seeded' }, { requires: ['dir'] }),
      r('old', 'file', { path: '/srv/old', ensure: 'absent' }),
    ];
    const first = await apply(resources, t.ctx);
    assert.deepEqual(first.map((x) => x.status), ['changed', 'changed', 'changed', 'changed', 'changed', 'unchanged']);
    const second = await apply(resources, t.ctx);
    assert.deepEqual(second.map((x) => [x.resource_id, x.status]), first.map((x) => [x.resource_id, 'unchanged']));
    const p = await plan(resources, t.ctx);
    assert.ok(p.every((x) => x.status === 'unchanged'), JSON.stringify(p));
  });

  it('a failed resource skips its dependants transitively and the rest goes on', async () => {
    const resources = [
      r('bad', 'script', { run: 'echo broken >&2; exit 2' }),
      r('child', 'file', { path: '/child', content: 'x' }, { requires: ['bad'] }),
      r('grandchild', 'file', { path: '/grandchild', content: 'x' }, { requires: ['child'] }),
      r('other', 'file', { path: '/other', content: 'x' }),
      r('pkg', 'package', { name: 'curl' }),
    ];
    // A registry without package: how an agent treats a type it has no provider for.
    const withoutPackage = new ProviderRegistry().register(fileProvider as Provider).register(scriptProvider as Provider);
    const res = await apply(resources, t.ctx, withoutPackage);
    const by = Object.fromEntries(res.map((x) => [x.resource_id, x]));
    assert.equal(by.bad!.status, 'failed');
    assert.equal(by.bad!.message, 'exited 2');
    assert.equal(by.bad!.output?.stderr, 'broken\n');
    assert.equal(by.child!.status, 'skipped');
    assert.equal(by.child!.message, 'requires "bad", which failed');
    assert.equal(by.grandchild!.status, 'skipped');
    assert.equal(by.grandchild!.message, 'requires "child", which was skipped');
    assert.equal(by.other!.status, 'changed');
    assert.equal(by.pkg!.status, 'failed');
    assert.match(by.pkg!.message!, /not supported by this agent yet/);
    assert.equal(existsSync(t.real('/child')), false);
    assert.equal(existsSync(t.real('/other')), true);

    const p = await plan(resources, t.ctx, withoutPackage);
    const pb = Object.fromEntries(p.map((x) => [x.resource_id, x]));
    assert.equal(pb.bad!.status, 'would_change', 'a plan cannot know a script will fail');
    assert.equal(pb.pkg!.status, 'would_fail');
    assert.equal(pb.other!.status, 'unchanged');
  });

  it('plan marks dependants of a would_fail resource as would_fail', async () => {
    mkdirSync(t.real('/x'));
    const p = await plan([r('a', 'file', { path: '/x', content: 'x' }), r('b', 'file', { path: '/y' }, { requires: ['a'] })], t.ctx);
    assert.deepEqual(p.map((x) => [x.status, x.message]), [
      ['would_fail', `${t.real('/x')} is a directory, not a file`],
      ['would_fail', 'requires "a", which would fail'],
    ]);
  });

  it('notify re-runs a script once at the end when any notifier changed, and not when none did', async () => {
    const log = t.real('/reloads');
    const resources = [
      r('reload', 'script', { run: `echo reload >> ${log}`, unless: 'true' }),
      r('a', 'file', { path: '/a', content: 'a' }, { notify: ['reload'] }),
      r('b', 'file', { path: '/b', content: 'b' }, { notify: ['reload'] }),
      r('c', 'file', { path: '/c', content: 'c' }, { notify: ['reload'], requires: ['b'] }),
    ];
    const p = await plan(resources, t.ctx);
    assert.equal(p[0]!.status, 'would_change');
    assert.match(p[0]!.message!, /would re-run \(notified by a, b, c\)/);
    assert.equal(existsSync(log), false);

    const first = await apply(resources, t.ctx);
    const reload = first.find((x) => x.resource_id === 'reload')!;
    assert.equal(reload.status, 'changed');
    assert.deepEqual(reload.notified_by, ['a', 'b', 'c']);
    assert.equal(readFileSync(log, 'utf8'), 'reload\n', 're-run exactly once');
    assert.equal(first.at(-1)!.resource_id, 'c', 'the re-run happens at the end, after every resource');

    const second = await apply(resources, t.ctx);
    assert.ok(second.every((x) => x.status === 'unchanged'));
    assert.equal(readFileSync(log, 'utf8'), 'reload\n');
  });

  it('a notify target that failed is not re-run', async () => {
    const resources = [r('t', 'script', { run: 'exit 1' }), r('a', 'file', { path: '/a', content: 'a' }, { notify: ['t'] })];
    const res = await apply(resources, t.ctx);
    assert.equal(res[0]!.status, 'failed');
    assert.match(res[0]!.message!, /not re-run for a/);
  });

  it('apply refuses a dry-run context', async () => {
    await assert.rejects(apply([], t.ctx.forPlan()), /dry run/);
  });
});
