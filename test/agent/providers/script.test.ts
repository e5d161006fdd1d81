import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { after, beforeEach, describe, it } from 'node:test';
import { runShell, TRUNCATED_MARKER } from '../../../agent/providers/run-command.js';
import { scriptProvider } from '../../../agent/providers/script.js';
import { ConvergeError } from '../../../agent/providers/types.js';
import { isRoot, tempRoot, type TempRoot } from './support.js';

describe('script provider', () => {
  let t: TempRoot;
  const roots: TempRoot[] = [];
  beforeEach(() => {
    t = tempRoot();
    roots.push(t);
  });
  after(() => roots.forEach((r) => r.cleanup()));

  it('with no guard: read runs nothing and diff says "would run"', async () => {
    const marker = t.real('/ran');
    const props = { run: `touch ${marker}` };
    const current = await scriptProvider.read(props, t.ctx);
    const d = scriptProvider.diff(props, current);
    assert.equal(d.changed, true);
    assert.equal(d.message, 'would run (no guard)');
    assert.equal(existsSync(marker), false);
    const r = await scriptProvider.converge(props, current, t.ctx);
    assert.equal(existsSync(marker), true);
    assert.deepEqual(r.output, { stdout: '', stderr: '', exit_code: 0 });
  });

  it('creates: skips when the path (under the root) exists', async () => {
    const props = { run: 'exit 1', creates: '/done' };
    assert.equal(scriptProvider.diff(props, await scriptProvider.read(props, t.ctx)).changed, true);
    writeFileSync(t.real('/done'), '');
    const d = scriptProvider.diff(props, await scriptProvider.read(props, t.ctx));
    assert.equal(d.changed, false);
    assert.equal(d.message, 'creates: /done exists');
  });

  it('unless: skips when it exits 0; check: runs only when it exits 0', async () => {
    const skip = await scriptProvider.read({ run: 'exit 1', unless: 'true' }, t.ctx);
    assert.deepEqual([skip.willRun, skip.reason], [false, 'unless exited 0']);
    const go = await scriptProvider.read({ run: 'exit 1', unless: 'false' }, t.ctx);
    assert.equal(go.willRun, true);
    const noCheck = await scriptProvider.read({ run: 'exit 1', check: 'exit 3' }, t.ctx);
    assert.deepEqual([noCheck.willRun, noCheck.reason], [false, 'check exited 3']);
    const yesCheck = await scriptProvider.read({ run: 'exit 1', check: 'true', unless: 'false' }, t.ctx);
    assert.deepEqual([yesCheck.willRun, yesCheck.reason], [true, 'guards passed']);
  });

  it('passes env and cwd (under the root), captures stdout, stderr and the exit code', async () => {
    const props = { run: 'echo "$GREETING"; pwd; echo oops >&2; exit 4', env: { GREETING: 'hi' }, cwd: '/' };
    await assert.rejects(
      scriptProvider.converge(props, await scriptProvider.read(props, t.ctx), t.ctx),
      (e: unknown) => {
        assert.ok(e instanceof ConvergeError);
        assert.equal(e.message, 'exited 4');
        assert.equal(e.output?.stdout, `hi\n${t.dir}\n`);
        assert.equal(e.output?.stderr, 'oops\n');
        assert.equal(e.output?.exit_code, 4);
        return true;
      },
    );
  });

  it('kills a script (and its children) at the timeout', async () => {
    const started = Date.now();
    const props = { run: 'sleep 30 & sleep 30; echo never', timeout: 1 };
    await assert.rejects(scriptProvider.converge(props, await scriptProvider.read(props, t.ctx), t.ctx), /timed out after 1 s/);
    assert.ok(Date.now() - started < 10_000);
  });

  it('caps captured output with a marker', async () => {
    const r = await runShell('head -c 5000 /dev/zero | tr "\\0" a', { cwd: '/', timeoutMs: 10_000, capBytes: 1000 });
    assert.equal(r.stdout, 'a'.repeat(1000) + TRUNCATED_MARKER);
    assert.equal(r.exit_code, 0);
  });

  it('runs as another user', { skip: isRoot ? false : 'needs root to switch users' }, async () => {
    const props = { run: 'id -un; echo "$HOME"', user: 'nobody' };
    const r = await scriptProvider.converge(props, await scriptProvider.read(props, t.ctx), t.ctx);
    assert.equal(r.output?.stdout.split('\n')[0], 'nobody');
  });

  it('refresh re-runs the body ignoring the guards', async () => {
    const log = t.real('/log');
    const props = { run: `echo run >> ${log}`, unless: 'true' };
    assert.equal((await scriptProvider.read(props, t.ctx)).willRun, false);
    await scriptProvider.refresh!(props, t.ctx);
    assert.equal(readFileSync(log, 'utf8'), 'run\n');
  });
});
