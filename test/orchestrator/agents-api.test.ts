// Bad input on the agents, tags and metrics endpoints: clear problems, nothing stored.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startAgentProcess, type AgentProcess } from '../helpers/agent-process.js';
import { assertProblem, startTestOrchestrator, type TestOrchestrator } from '../helpers/orchestrator.js';

let orch: TestOrchestrator;
let token: string;
let viewer: string;
let agent: AgentProcess;

before(async () => {
  orch = await startTestOrchestrator();
  token = (await orch.loginAs('operator')).token;
  viewer = (await orch.loginAs('viewer')).token;
  agent = await startAgentProcess({ orchestratorUrl: orch.url, nodeId: 'tagged' });
  const deadline = Date.now() + 20_000;
  while ((await orch.api('GET', '/agents/tagged', { token })).status !== 200) {
    if (Date.now() > deadline) throw new Error('agent did not enroll');
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal((await orch.api('PUT', '/agents/tagged/tags', { token, body: { role: 'web' } })).status, 200);
});
after(async () => {
  await agent.dispose();
  await orch.close();
});

const tagsNow = async () => (await orch.api('GET', '/agents/tagged', { token })).json.tags;

describe('PUT /api/v1/agents/{node_id}/tags', () => {
  it('refuses bad keys by name, too many tags, long values and non-strings; stores nothing', async () => {
    const bad = await orch.api('PUT', '/agents/tagged/tags', { token, body: { ok: 'x', 'Bad Key': 'y', '-lead': 'z' } });
    assertProblem(bad, 400, 'invalid-tag-key');
    assert.deepEqual(bad.json.errors.map((e: { field: string }) => e.field).sort(), ['body.-lead', 'body.Bad Key']);
    assertProblem(await orch.api('PUT', '/agents/tagged/tags', { token, body: { role: 'x'.repeat(256) } }), 400, 'validation-failed');
    assertProblem(await orch.api('PUT', '/agents/tagged/tags', { token, body: { role: 7 } }), 400, 'validation-failed');
    assertProblem(await orch.api('PUT', '/agents/tagged/tags', { token, body: ['role'] }), 400, 'validation-failed');
    const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, 'v']));
    assertProblem(await orch.api('PUT', '/agents/tagged/tags', { token, body: many }), 400, 'validation-failed');
    assert.deepEqual(await tagsNow(), { role: 'web' });
  });

  it('answers 404 for an unknown agent and 403 for a viewer', async () => {
    assertProblem(await orch.api('PUT', '/agents/ghost/tags', { token, body: { a: 'b' } }), 404, 'agent-not-found');
    assertProblem(await orch.api('PUT', '/agents/tagged/tags', { token: viewer, body: { a: 'b' } }), 403, 'role-required');
    assert.deepEqual(await tagsNow(), { role: 'web' });
  });
});

describe('PUT and DELETE /api/v1/agents/{node_id}/tags/{key}', () => {
  it('validate the key in the path and the value in the body', async () => {
    const res = await orch.api('PUT', '/agents/tagged/tags/UPPER', { token, body: { value: 'x' } });
    assertProblem(res, 400, 'validation-failed');
    assert.equal(res.json.errors[0].field, 'params.key');
    assertProblem(await orch.api('PUT', '/agents/tagged/tags/env', { token, body: { value: 'x'.repeat(256) } }), 400, 'validation-failed');
    assertProblem(await orch.api('PUT', '/agents/tagged/tags/env', { token, body: { value: 'prod', extra: 1 } }), 400, 'validation-failed');
    assertProblem(await orch.api('DELETE', '/agents/tagged/tags/absent', { token }), 404, 'tag-not-found');
    assertProblem(await orch.api('DELETE', '/agents/Bad_Node/tags/role', { token }), 400, 'validation-failed');
    assert.deepEqual(await tagsNow(), { role: 'web' });
  });
});

describe('GET /api/v1/agents', () => {
  it('names the position of a selector error', async () => {
    const res = await orch.api('GET', `/agents?selector=${encodeURIComponent('env in (prod')}`, { token: viewer });
    assertProblem(res, 400, 'invalid-selector');
    assert.equal(res.json.errors[0].field, 'querystring.selector');
    assert.match(res.json.detail, /position \d+/);
  });

  it('refuses unknown filters and bad values', async () => {
    assertProblem(await orch.api('GET', '/agents?status=happy', { token: viewer }), 400, 'validation-failed');
    assertProblem(await orch.api('GET', '/agents?online=maybe', { token: viewer }), 400, 'validation-failed');
    assertProblem(await orch.api('GET', '/agents?colour=red', { token: viewer }), 400, 'validation-failed');
    assertProblem(await orch.api('GET', '/agents?cursor=garbage', { token: viewer }), 400, 'invalid-cursor');
  });

  it('pages by node id with a cursor', async () => {
    const first = await orch.api('GET', '/agents?limit=1', { token: viewer });
    assert.equal(first.json.items.length, 1);
    assert.equal(first.json.next_cursor, null, 'one agent: no next page');
  });
});

describe('GET /api/v1/agents/{node_id}/metrics', () => {
  it('refuses a window that ends before it starts, and unknown agents', async () => {
    const since = new Date().toISOString();
    const until = new Date(Date.now() - 3600_000).toISOString();
    assertProblem(await orch.api('GET', `/agents/tagged/metrics?since=${since}&until=${until}`, { token: viewer }), 400);
    assertProblem(await orch.api('GET', '/agents/tagged/metrics?step=0', { token: viewer }), 400, 'validation-failed');
    assertProblem(await orch.api('GET', '/agents/ghost/metrics', { token: viewer }), 404, 'agent-not-found');
    assertProblem(await orch.api('GET', '/agents/ghost/metrics/latest', { token: viewer }), 404, 'agent-not-found');
  });
});

describe('POST /api/v1/discover', () => {
  it('refuses bad targets and waits, and probes only the given targets in tests', async () => {
    assertProblem(await orch.api('POST', '/discover', { token, body: { targets: ['not-an-ip'] } }), 400, 'validation-failed');
    assertProblem(await orch.api('POST', '/discover', { token, body: { wait_ms: 50_000 } }), 400, 'validation-failed');
    assertProblem(await orch.api('POST', '/discover', { token: viewer, body: {} }), 403, 'role-required');
    const res = await orch.api('POST', '/discover', { token, body: { wait_ms: 200, targets: ['127.0.0.1'] } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json.sent_to, ['127.0.0.1']);
  });
});
