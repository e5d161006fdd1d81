// Desired state end to end: a real orchestrator, a real corral-agent child process, real
// modules applied to real files in a temporary directory.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { AgentProcess } from '../helpers/agent-process.js';
import { eventually, finishedDrift, finishedOperation, runOn, startAcceptedAgent, uploadModule } from '../helpers/fleet.js';
import { assertProblem, startTestOrchestrator, type TestOrchestrator } from '../helpers/orchestrator.js';

const NODE = 'state-1';

describe('apply, plan, state and drift with a real agent', () => {
  let orch: TestOrchestrator;
  let agent: AgentProcess;
  let admin: string;
  let op: string;
  let viewer: string;
  let dir: string;

  const moduleText = (greeting: string) => `name: web-${path.basename(dir).toLowerCase().replace(/[^a-z0-9]/g, '')}
description: a directory, a file from a template, a line, a symlink and a guarded script
vars:
  greeting: ${greeting}
resources:
  - id: root
    type: directory
    path: ${dir}/site
    mode: "0755"
  - id: index
    type: file
    path: ${dir}/site/index.html
    template: "<h1>{{ vars.greeting }} from {{ attributes.hostname }} ({{ tags.role }})</h1>\\n"
    mode: "0644"
    requires: [root]
  - id: conf-line
    type: line
    path: ${dir}/site/app.conf
    line: "listen = 8080"
    requires: [root]
  - id: current
    type: symlink
    path: ${dir}/current
    target: ${dir}/site
    requires: [root]
  - id: stamp
    type: script
    run: "echo built > ${dir}/site/stamp && echo stamped"
    creates: ${dir}/site/stamp
    requires: [index]
`;
  let moduleName: string;

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'corral-state-'));
    orch = await startTestOrchestrator({ heartbeatS: 2 });
    admin = await orch.adminToken();
    op = (await orch.loginAs('operator', 'state-op')).token;
    viewer = (await orch.loginAs('viewer')).token;
    agent = await startAcceptedAgent(orch, admin, NODE);
    assert.equal((await orch.api('PUT', `/agents/${NODE}/tags/role`, { token: op, body: { value: 'web' } })).status, 200);
    const up = await uploadModule(orch, op, moduleText('hello'));
    moduleName = up.json.name;
  });
  after(async () => {
    await agent?.dispose();
    await orch?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a plan reports what would change and changes nothing', async () => {
    const plan = await runOn(orch, op, NODE, 'plan', { modules: [moduleName] });
    assert.equal(plan.kind, 'plan');
    assert.equal(plan.status, 'succeeded', JSON.stringify(plan));
    assert.deepEqual(
      plan.results.map((r) => [r.resource_id, r.status]),
      [['root', 'would_change'], ['index', 'would_change'], ['conf-line', 'would_change'], ['current', 'would_change'], ['stamp', 'would_change']],
    );
    const index = plan.results.find((r) => r.resource_id === 'index')!;
    assert.match(index.diff!.content!, /\+<h1>hello from .+ \(web\)<\/h1>/);
    assert.equal(existsSync(path.join(dir, 'site')), false, 'the plan created nothing');
    assert.equal(plan.counts.would_change, 5);
    assert.match(plan.plan_hash ?? '', /^[0-9a-f]{64}$/);
  });

  it('apply converges in dependency order, captures script output, and records believed state', async () => {
    const apply = await runOn(orch, op, NODE, 'apply', { modules: [moduleName] });
    assert.equal(apply.status, 'succeeded', JSON.stringify(apply.results));
    assert.ok(apply.results.every((r) => r.status === 'changed'));
    assert.ok(apply.results.every((r) => r.change_kind === 'intentional'), 'first apply: every change intentional');
    assert.equal(statSync(path.join(dir, 'site')).mode & 0o7777, 0o755);
    assert.match(readFileSync(path.join(dir, 'site/index.html'), 'utf8'), /^<h1>hello from .+ \(web\)<\/h1>\n$/);
    assert.equal(readFileSync(path.join(dir, 'site/app.conf'), 'utf8'), 'listen = 8080\n');
    assert.equal(readFileSync(path.join(dir, 'site/stamp'), 'utf8'), 'built\n');
    const stamp = apply.results.find((r) => r.resource_id === 'stamp')!;
    assert.equal(stamp.has_output, true);
    const output = await orch.api('GET', `/agents/${NODE}/state/operations/${apply.operation_id}/output`, { token: viewer });
    assert.equal(output.status, 200, output.text);
    assert.deepEqual(output.json.resources.map((r: { resource_id: string; stdout: string; exit_code: number }) => [r.resource_id, r.stdout, r.exit_code]), [['stamp', 'stamped\n', 0]]);

    const state = await orch.api('GET', `/agents/${NODE}/state`, { token: viewer });
    assert.equal(state.status, 200, state.text);
    assert.equal(state.json.baseline_operation_id, apply.operation_id);
    assert.equal(state.json.resources.length, 5);
    const idx = state.json.resources.find((r: { resource_id: string }) => r.resource_id === 'index');
    assert.equal(idx.desired.path, `${dir}/site/index.html`);
    assert.equal(idx.observed.exists, true);
  });

  it('a second apply of the same modules reports everything unchanged', async () => {
    const again = await runOn(orch, op, NODE, 'apply', { modules: [moduleName] });
    assert.equal(again.status, 'succeeded');
    assert.deepEqual(again.results.map((r) => r.status), ['unchanged', 'unchanged', 'unchanged', 'unchanged', 'unchanged']);
    assert.equal(again.counts.unchanged, 5);
  });

  it('a drift check finds a file changed by hand, a corrective apply fixes it, and the next check is clean', async () => {
    const file = path.join(dir, 'site/index.html');
    writeFileSync(file, 'defaced\n');
    chmodSync(file, 0o600);
    const started = await orch.api('POST', `/agents/${NODE}/drift`, { token: op });
    assert.equal(started.status, 202, started.text);
    assert.equal(started.json.status, 'running');
    const record = await finishedDrift(orch, viewer, started.json.drift_id);
    assert.equal(record.status, 'done', JSON.stringify(record));
    assert.equal(record.drifted, true);
    assert.equal(record.drifted_count, 1);
    const item = record.items.find((i) => i.resource_id === 'index')!;
    assert.equal(item.status, 'drifted');
    assert.deepEqual(item.expected.mode, '0644');
    assert.deepEqual(item.actual.mode, '0600');
    assert.match(item.diff?.content ?? '', /-defaced/);
    assert.equal(readFileSync(file, 'utf8'), 'defaced\n', 'the check changed nothing');
    const latest = await orch.api('GET', `/agents/${NODE}/drift/latest`, { token: viewer });
    assert.equal(latest.json.drift_id, record.drift_id);

    const fix = await runOn(orch, op, NODE, 'apply', { modules: [moduleName] });
    const fixed = fix.results.find((r) => r.resource_id === 'index')!;
    assert.equal(fixed.status, 'changed');
    assert.equal(fixed.change_kind, 'corrective', 'same desired state, the machine had moved');
    const clean = await finishedDrift(orch, viewer, (await orch.api('POST', `/agents/${NODE}/drift`, { token: op })).json.drift_id);
    assert.equal(clean.drifted, false);
    const history = await orch.api('GET', `/agents/${NODE}/drift`, { token: viewer });
    assert.deepEqual(history.json.items.map((d: { drifted: boolean }) => d.drifted), [false, true]);
  });

  it('scheduled drift checks take every online agent with a baseline, one check at a time each', async () => {
    const drift = orch.handle.services.drift;
    assert.equal(drift.checkAll(), 1);
    assert.equal(drift.checkAll(), 0, 'a check under way is not started twice');
    const list = await eventually('the scheduled check finished', async () => {
      const res = await orch.api('GET', `/agents/${NODE}/drift?limit=1`, { token: viewer });
      return res.json.items[0]?.status === 'done' ? res.json : undefined;
    });
    assert.equal(list.items[0].trigger, 'schedule');
    assert.equal(list.items[0].actor, 'system');
    assert.equal(list.items[0].drifted, false);
  });

  it('a changed module makes an intentional change', async () => {
    await uploadModule(orch, op, moduleText('welcome'));
    const apply = await runOn(orch, op, NODE, 'apply', { modules: [moduleName] });
    const index = apply.results.find((r) => r.resource_id === 'index')!;
    assert.equal(index.status, 'changed');
    assert.equal(index.change_kind, 'intentional');
    assert.equal(apply.modules[0]!.revision, 2);
  });

  it('apply with plan_operation_id runs only what was reviewed (plan_stale otherwise)', async () => {
    const file = path.join(dir, 'site/app.conf');
    writeFileSync(file, 'listen = 9090\n');
    const plan = await runOn(orch, op, NODE, 'plan', { modules: [moduleName] });
    assert.equal(plan.results.find((r) => r.resource_id === 'conf-line')!.status, 'would_change');
    // The machine moves after the review: refused, nothing applied.
    writeFileSync(file, 'listen = 7070\n');
    const stale = await orch.api('POST', `/agents/${NODE}/apply`, { token: op, body: { modules: [moduleName], plan_operation_id: plan.operation_id } });
    assertProblem(stale, 409, 'plan_stale');
    assert.match(stale.json.detail, /conf-line/);
    assert.equal(readFileSync(file, 'utf8'), 'listen = 7070\n');

    const fresh = await runOn(orch, op, NODE, 'plan', { modules: [moduleName] });
    const applied = await runOn(orch, op, NODE, 'apply', { modules: [moduleName], plan_operation_id: fresh.operation_id });
    assert.equal(applied.status, 'succeeded');
    assert.equal(applied.plan_operation_id, fresh.operation_id);
    // No `match`: the line is added, the hand-written one stays.
    assert.equal(readFileSync(file, 'utf8'), 'listen = 7070\nlisten = 8080\n');
    // A plan already carried out is stale: an apply ran after it.
    const again = await orch.api('POST', `/agents/${NODE}/apply`, { token: op, body: { modules: [moduleName], plan_operation_id: fresh.operation_id } });
    assertProblem(again, 409, 'plan_stale');

    // A module revised after the plan.
    const p2 = await runOn(orch, op, NODE, 'plan', { modules: [moduleName] });
    await uploadModule(orch, op, moduleText('bonjour'));
    const revised = await orch.api('POST', `/agents/${NODE}/apply`, { token: op, body: { modules: [moduleName], plan_operation_id: p2.operation_id } });
    assertProblem(revised, 409, 'plan_stale');
    assert.match(revised.json.detail, /revision 3/);
  });

  it('lists operations most recent first, filtered, and one operation with results', async () => {
    const all = await orch.api('GET', `/state/operations?node_id=${NODE}&limit=2`, { token: viewer });
    assert.equal(all.status, 200, all.text);
    assert.equal(all.json.items.length, 2);
    assert.ok(all.json.next_cursor);
    const next = await orch.api('GET', `/state/operations?node_id=${NODE}&limit=2&cursor=${all.json.next_cursor}`, { token: viewer });
    assert.ok(next.json.items[0].created_at <= all.json.items[1].created_at);
    const plans = await orch.api('GET', `/agents/${NODE}/state/operations?kind=plan`, { token: viewer });
    assert.ok(plans.json.items.length >= 3);
    assert.ok(plans.json.items.every((o: { kind: string }) => o.kind === 'plan'));
    const one = await orch.api('GET', `/state/operations/${plans.json.items[0].operation_id}`, { token: viewer });
    assert.equal(one.json.results.length, 5);
  });

  it('refuses bad requests clearly and stores nothing', async () => {
    const before = (await orch.api('GET', '/state/operations?limit=1000', { token: viewer })).json.items.length;
    assertProblem(await orch.api('POST', `/agents/${NODE}/apply`, { token: op, body: { modules: [] } }), 400);
    assertProblem(await orch.api('POST', `/agents/${NODE}/apply`, { token: op, body: { modules: ['no-such-module'] } }), 404, 'module-not-found');
    assertProblem(await orch.api('POST', `/agents/${NODE}/apply`, { token: op, body: { modules: [moduleName], vars: { nope: 1 } } }), 400, 'unknown-var');
    assertProblem(await orch.api('POST', `/agents/${NODE}/apply`, { token: op, body: { modules: [moduleName, moduleName] } }), 400, 'duplicate-module');
    assertProblem(await orch.api('POST', `/agents/${NODE}/apply`, { token: op, body: { modules: ['../etc/passwd'] } }), 400);
    assertProblem(await orch.api('POST', `/agents/${NODE}/apply`, { token: op, body: { modules: [moduleName], extra: true } }), 400);
    assertProblem(await orch.api('POST', '/agents/nobody/apply', { token: op, body: { modules: [moduleName] } }), 404, 'agent-not-found');
    assertProblem(await orch.api('POST', `/agents/${NODE}/plan`, { token: op, body: { modules: [moduleName], plan_operation_id: '00000000-0000-4000-8000-000000000000' } }), 400);
    assertProblem(await orch.api('POST', `/agents/${NODE}/apply`, { token: op, body: { modules: [moduleName], plan_operation_id: '00000000-0000-4000-8000-000000000000' } }), 404, 'plan-not-found');
    assertProblem(await orch.api('POST', `/agents/${NODE}/apply`, { token: viewer, body: { modules: [moduleName] } }), 403);
    assertProblem(await orch.api('GET', '/state/operations/not-a-uuid', { token: viewer }), 400);
    assertProblem(await orch.api('GET', '/state/operations/00000000-0000-4000-8000-000000000000', { token: viewer }), 404, 'operation-not-found');
    assertProblem(await orch.api('GET', '/drift/00000000-0000-4000-8000-000000000000', { token: viewer }), 404, 'drift-not-found');
    // A tag the template needs is missing: refused before anything is queued.
    assert.equal((await orch.api('DELETE', `/agents/${NODE}/tags/role`, { token: op })).status, 200);
    const unresolved = await orch.api('POST', `/agents/${NODE}/plan`, { token: op, body: { modules: [moduleName] } });
    assertProblem(unresolved, 409, 'template_unresolved');
    assert.match(unresolved.json.detail, /tag "role"/);
    assert.equal((await orch.api('PUT', `/agents/${NODE}/tags/role`, { token: op, body: { value: 'web' } })).status, 200);
    assert.equal((await orch.api('GET', '/state/operations?limit=1000', { token: viewer })).json.items.length, before);
  });

  it('an offline agent: 409 agent_offline for apply, plan and drift', async () => {
    await agent.kill('SIGKILL');
    await eventually('agent offline', async () => !(await orch.api('GET', `/agents/${NODE}`, { token: admin })).json.online);
    assertProblem(await orch.api('POST', `/agents/${NODE}/apply`, { token: op, body: { modules: [moduleName] } }), 409, 'agent_offline');
    assertProblem(await orch.api('POST', `/agents/${NODE}/plan`, { token: op, body: { modules: [moduleName] } }), 409, 'agent_offline');
    assertProblem(await orch.api('POST', `/agents/${NODE}/drift`, { token: op }), 409, 'agent_offline');
    // Reads still work.
    assert.equal((await orch.api('GET', `/agents/${NODE}/state`, { token: viewer })).status, 200);
    void finishedOperation;
  });
});
