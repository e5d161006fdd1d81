// Assignments with real agents: fan-out to what the selector matches at call time, skipped
// offline agents, the fleet summary, rollout waves, and module deletion guarded by use.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { BatchSummary } from '../../common/schemas/assignments.js';
import type { AgentProcess } from '../helpers/agent-process.js';
import { eventually, startAcceptedAgent, uploadModule } from '../helpers/fleet.js';
import { assertProblem, startTestOrchestrator, type TestOrchestrator } from '../helpers/orchestrator.js';

const NODES = ['asg-a', 'asg-b', 'asg-c'];

describe('assignments with real agents', () => {
  let orch: TestOrchestrator;
  let admin: string;
  let op: string;
  let viewer: string;
  let dir: string;
  const agents = new Map<string, AgentProcess>();

  const tag = async (node: string, key: string, value: string) => assert.equal((await orch.api('PUT', `/agents/${node}/tags/${key}`, { token: op, body: { value } })).status, 200);
  const finishedBatch = (batchId: string) =>
    eventually(`batch ${batchId} done`, async () => {
      const res = await orch.api('GET', `/state/batches/${batchId}`, { token: viewer });
      return (res.json as BatchSummary).done ? (res.json as BatchSummary) : undefined;
    });

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'corral-asg-'));
    orch = await startTestOrchestrator({ heartbeatS: 2 });
    admin = await orch.adminToken();
    op = (await orch.loginAs('operator', 'asg-op')).token;
    viewer = (await orch.loginAs('viewer')).token;
    for (const node of NODES) agents.set(node, await startAcceptedAgent(orch, admin, node));
    await tag('asg-a', 'role', 'web');
    await tag('asg-b', 'role', 'web');
    await tag('asg-c', 'role', 'db');
    // Each agent writes its own file: they share this machine, so the path comes from a per-agent tag.
    await uploadModule(
      orch,
      op,
      `name: motd
vars:
  text: hello
resources:
  - id: banner
    type: file
    path: ${dir}/{{ tags.node }}/motd
    template: "{{ vars.text }} {{ tags.role }}\\n"
    requires: [parent]
  - id: parent
    type: directory
    path: ${dir}/{{ tags.node }}
`,
    );
    for (const node of NODES) await tag(node, 'node', node);
  });
  after(async () => {
    for (const a of agents.values()) await a.dispose();
    await orch?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates assignments with checks, lists and reads them', async () => {
    const created = await orch.api('POST', '/assignments', { token: op, body: { name: 'web', selector: 'role=web', modules: ['motd'], vars: { text: 'hi' }, description: 'web banners' } });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.matching_agents, 2);
    assertProblem(await orch.api('POST', '/assignments', { token: op, body: { name: 'web', selector: 'role=web', modules: ['motd'] } }), 409, 'assignment-exists');
    const badSelector = await orch.api('POST', '/assignments', { token: op, body: { name: 'bad', selector: 'role in (web', modules: ['motd'] } });
    assertProblem(badSelector, 400, 'invalid-selector');
    assert.equal(badSelector.json.errors[0].field, 'body.selector');
    assertProblem(await orch.api('POST', '/assignments', { token: op, body: { name: 'bad', selector: 'role=web', modules: ['nope'] } }), 400, 'unknown-module');
    assertProblem(await orch.api('POST', '/assignments', { token: op, body: { name: 'bad', selector: 'role=web', modules: ['motd'], vars: { zzz: 1 } } }), 400, 'unknown-var');
    assertProblem(await orch.api('POST', '/assignments', { token: op, body: { name: '../bad', selector: 'role=web', modules: ['motd'] } }), 400);
    assertProblem(await orch.api('POST', '/assignments', { token: viewer, body: { name: 'v', selector: 'role=web', modules: ['motd'] } }), 403);
    const list = await orch.api('GET', '/assignments', { token: viewer });
    assert.deepEqual(list.json.items.map((a: { name: string }) => a.name), ['web']);
    assert.equal((await orch.api('GET', '/assignments/web', { token: viewer })).json.selector, 'role=web');
    assertProblem(await orch.api('GET', '/assignments/nope', { token: viewer }), 404, 'assignment-not-found');
  });

  it('a module in use cannot be deleted; the refusal names the assignment', async () => {
    const refused = await orch.api('DELETE', '/modules/motd', { token: op });
    assertProblem(refused, 409, 'module-in-use');
    assert.match(refused.json.detail, /web/);
  });

  it('plan then apply fan out to the agents the selector matches, with a fleet summary', async () => {
    const plan = await orch.api('POST', '/assignments/web/plan', { token: op, body: {} });
    assert.equal(plan.status, 202, plan.text);
    assert.equal(plan.json.total, 2, plan.text);
    assert.deepEqual(plan.json.operations.map((o: { node_id: string }) => o.node_id).sort(), ['asg-a', 'asg-b']);
    const planned = await finishedBatch(plan.json.batch_id);
    assert.equal(planned.headline, '2 agents: 2 would change, 0 failed');
    assert.equal(planned.groups.length, 1, 'identical results are one group');
    assert.equal(planned.groups[0]!.count, 2);
    assert.equal(existsSync(path.join(dir, 'asg-a')), false, 'a plan changes nothing');

    const apply = await orch.api('POST', '/assignments/web/apply', { token: op, body: {} });
    const applied = await finishedBatch(apply.json.batch_id);
    assert.equal(applied.counts.succeeded, 2);
    assert.equal(readFileSync(path.join(dir, 'asg-a/motd'), 'utf8'), 'hi web\n');
    assert.equal(readFileSync(path.join(dir, 'asg-b/motd'), 'utf8'), 'hi web\n');
    assert.equal(existsSync(path.join(dir, 'asg-c')), false, 'the db agent is not matched');
    const ops = await orch.api('GET', `/state/operations?batch_id=${apply.json.batch_id}`, { token: viewer });
    assert.ok(ops.json.items.every((o: { trigger: string; assignment: string }) => o.trigger === 'assignment' && o.assignment === 'web'));
    const again = await finishedBatch((await orch.api('POST', '/assignments/web/apply', { token: op, body: {} })).json.batch_id);
    assert.equal(again.headline, '2 agents: 0 changed, 0 failed');
    assert.equal(again.groups[0]!.label, 'all unchanged');
  });

  it('matches the tag set at call time', async () => {
    await tag('asg-c', 'role', 'web');
    const batch = await finishedBatch((await orch.api('POST', '/assignments/web/apply', { token: op, body: {} })).json.batch_id);
    assert.equal(batch.total, 3);
    assert.equal(readFileSync(path.join(dir, 'asg-c/motd'), 'utf8'), 'hi web\n');
    assert.equal(batch.headline, '3 agents: 1 changed, 0 failed');
    assert.deepEqual(batch.groups.map((g) => [g.count, g.label]), [[2, 'all unchanged'], [1, 'changed: motd/parent, motd/banner']]);
    await tag('asg-c', 'role', 'db');
  });

  it('an offline agent gets a skipped operation with the reason', async () => {
    await agents.get('asg-b')!.kill('SIGKILL');
    await eventually('asg-b offline', async () => !(await orch.api('GET', '/agents/asg-b', { token: admin })).json.online);
    const res = await orch.api('POST', '/assignments/web/plan', { token: op, body: {} });
    const batch = await finishedBatch(res.json.batch_id);
    assert.equal(batch.counts.skipped, 1);
    const skipped = batch.operations.find((o) => o.node_id === 'asg-b')!;
    assert.equal(skipped.status, 'skipped');
    assert.match(skipped.message ?? '', /offline/);
    assert.match(batch.headline, /1 skipped/);
    agents.set('asg-b', await startAcceptedAgent(orch, admin, 'asg-b', { stateDir: agents.get('asg-b')!.stateDir }));
  });

  it('rolls out in waves and stops after a failing wave when asked', async () => {
    await uploadModule(
      orch,
      op,
      `name: fragile
resources:
  - id: check
    type: script
    run: "test {{ tags.node }} != asg-a"
`,
    );
    for (const node of NODES) await tag(node, 'fleet', 'all');
    const created = await orch.api('POST', '/assignments', { token: op, body: { name: 'fragile', selector: 'fleet=all', modules: ['fragile'] } });
    assert.equal(created.status, 201, created.text);
    const res = await orch.api('POST', '/assignments/fragile/apply', { token: op, body: { batch_size: 1, stop_on_failure: true } });
    assert.equal(res.status, 202, res.text);
    const batch = await finishedBatch(res.json.batch_id);
    // asg-a fails first (waves follow node order), so the other waves never run.
    assert.equal(batch.operations[0]!.node_id, 'asg-a');
    assert.equal(batch.counts.failed, 1);
    assert.equal(batch.counts.cancelled, 2);
    assert.match(batch.operations[1]!.message ?? '', /stop_on_failure/);
    assert.equal((await orch.api('DELETE', '/assignments/fragile', { token: op })).status, 204);
    assertProblem(await orch.api('GET', '/assignments/fragile', { token: viewer }), 404);
    assert.equal((await orch.api('DELETE', '/modules/fragile', { token: op })).status, 204, 'no assignment uses it now');
  });
});
