// Real agent processes against a real orchestrator: enrollment, approval, data,
// tags, revocation, deletion, key pinning and the faults an operator meets.
import assert from 'node:assert/strict';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startAgentProcess, type AgentProcess } from '../helpers/agent-process.js';
import { cleanEnv, startServe, type ServeChild } from '../helpers/child.js';
import { eventually } from '../helpers/fleet.js';
import { makeKey } from '../helpers/keys.js';
import { assertProblem, makeApi, removeDir, startTestOrchestrator, tempDir, type TestOrchestrator } from '../helpers/orchestrator.js';
import { writeFileSync } from 'node:fs';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

describe('an agent from first contact to deletion', () => {
  let orch: TestOrchestrator;
  let token: string;
  let agent: AgentProcess | undefined;
  let twin: AgentProcess | undefined;

  before(async () => {
    orch = await startTestOrchestrator({ heartbeatS: 1 });
    token = (await orch.loginAs('operator')).token;
  });
  after(async () => {
    await agent?.dispose();
    await twin?.dispose();
    await orch.close();
  });

  const get = async (nodeId: string) => {
    const res = await orch.api('GET', `/agents/${nodeId}`, { token });
    return res.status === 200 ? res.json : undefined;
  };

  it('enrolls as pending with its key fingerprint, and gets nothing until accepted', async () => {
    agent = await startAgentProcess({ orchestratorUrl: orch.url, nodeId: 'web-1' });
    const row = await eventually('web-1 pending and online', async () => {
      const a = await get('web-1');
      return a?.online && a;
    });
    assert.equal(row.status, 'pending');
    assert.equal(row.key_fingerprint, agent.keyFingerprint, 'the fingerprint the operator compares is the one the agent logs');
    assert.equal((await orch.api('GET', '/agents/web-1/attributes', { token })).json.updated_at, null);
    assertProblem(await orch.api('GET', '/agents/web-1/metrics/latest', { token }), 404, 'no-metrics');
    const audit = await orch.api('GET', '/audit?action=agent.enroll&target=web-1', { token });
    assert.equal(audit.json.items.length, 1);
  });

  it('once accepted, sends attributes read from the OS and metrics', async () => {
    const accepted = await orch.api('POST', '/agents/web-1', { token, body: { status: 'accepted' } });
    assert.equal(accepted.status, 200, accepted.text);
    assert.equal(accepted.json.status, 'accepted');
    const attrs = await eventually('attributes', async () => {
      const res = await orch.api('GET', '/agents/web-1/attributes', { token });
      return res.json.updated_at && res.json.attributes;
    });
    assert.equal(attrs.os, process.platform);
    assert.equal(typeof attrs.kernel, 'string');
    assert.ok(attrs.cpu_count >= 1);
    const latest = await eventually('a metrics sample', async () => {
      const res = await orch.api('GET', '/agents/web-1/metrics/latest', { token });
      return res.status === 200 && res.json;
    });
    assert.ok(latest.sample.mem_total > 0);
    assert.ok(latest.sample.cpu_percent >= 0 && latest.sample.cpu_percent <= 100);
    const history = await eventually('two samples in history', async () => {
      const res = await orch.api('GET', '/agents/web-1/metrics', { token });
      return res.json.points.length >= 2 && res.json;
    });
    assert.equal(history.resolution, 'raw');
    const listed = (await orch.api('GET', '/agents?status=accepted', { token })).json.items[0];
    assert.equal(listed.node_id, 'web-1');
    assert.equal(typeof listed.metrics.cpu_percent, 'number');
    assert.equal(listed.attributes.os, process.platform);
  });

  it('takes tags: set, replace, remove; lists them; selects by them', async () => {
    assert.deepEqual((await orch.api('PUT', '/agents/web-1/tags/role', { token, body: { value: 'web' } })).json.tags, { role: 'web' });
    assert.deepEqual((await orch.api('PUT', '/agents/web-1/tags', { token, body: { env: 'prod', tier: 'front', 'team/owner': 'ops' } })).json.tags, {
      env: 'prod',
      'team/owner': 'ops',
      tier: 'front',
    });
    assert.deepEqual((await orch.api('DELETE', '/agents/web-1/tags/tier', { token })).json.tags, { env: 'prod', 'team/owner': 'ops' });
    assertProblem(await orch.api('DELETE', '/agents/web-1/tags/tier', { token }), 404, 'tag-not-found');
    const tags = (await orch.api('GET', '/tags', { token })).json.items;
    assert.deepEqual(tags.find((t: { key: string }) => t.key === 'env'), { key: 'env', agents: 1, values: [{ value: 'prod', agents: 1 }] });
    assert.equal((await orch.api('GET', '/agents?selector=env%3Dprod,!tier', { token })).json.items.length, 1);
    assert.equal((await orch.api('GET', '/agents?selector=env%20in%20(staging)', { token })).json.items.length, 0);
  });

  it('refuses a second agent with the same node id and another key, records it, and keeps the first', async () => {
    twin = await startAgentProcess({ orchestratorUrl: orch.url, nodeId: 'web-1' });
    assert.notEqual(twin.keyFingerprint, agent!.keyFingerprint);
    await eventually('the key mismatch in the audit log', async () => {
      const res = await orch.api('GET', '/audit?action=agent.key_mismatch&target=web-1', { token });
      return res.json.items.length > 0 && res.json.items[0].details.presented_fingerprint === twin!.keyFingerprint;
    });
    await twin.dispose();
    twin = undefined;
    const before = (await orch.api('GET', '/agents/web-1/metrics/latest', { token })).json.received_at;
    await eventually('fresh metrics from the first agent', async () => {
      const now = (await orch.api('GET', '/agents/web-1/metrics/latest', { token })).json.received_at;
      return now > before;
    });
    const row = await get('web-1');
    assert.equal(row.online, true);
    assert.equal(row.key_fingerprint, agent!.keyFingerprint);
  });

  it('refuses illegal transitions and deleting a non-rejected agent', async () => {
    assertProblem(await orch.api('POST', '/agents/web-1', { token, body: { status: 'accepted' } }), 409, 'status-unchanged');
    assertProblem(await orch.api('POST', '/agents/web-1', { token, body: { status: 'pending' } }), 400, 'validation-failed');
    assertProblem(await orch.api('DELETE', '/agents/web-1', { token }), 409, 'agent-not-rejected');
    assertProblem(await orch.api('POST', '/agents/nobody', { token, body: { status: 'accepted' } }), 404, 'agent-not-found');
  });

  it('on reject closes the link at once; the agent stays offline while rejected', async () => {
    assert.equal((await orch.api('POST', '/agents/web-1', { token, body: { status: 'rejected' } })).status, 200);
    await eventually('web-1 offline', async () => (await get('web-1'))?.online === false);
    await agent!.waitForLog((e) => /rejected/i.test(String(e.msg)) || e.status === 'rejected');
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal((await get('web-1')).online, false, 'a rejected agent does not stay connected');
    assert.deepEqual((await get('web-1')).tags, { env: 'prod', 'team/owner': 'ops' }, 'rejecting keeps the record and tags');
  });

  it('after delete, the agent reappears as pending by itself', async () => {
    assert.equal((await orch.api('DELETE', '/agents/web-1', { token })).status, 204);
    assertProblem(await orch.api('GET', '/agents/web-1', { token }), 404, 'agent-not-found');
    const again = await eventually('web-1 pending again', async () => (await get('web-1'))?.status === 'pending' && (await get('web-1')), 70_000);
    assert.deepEqual(again.tags, {}, 'a new record: the old tags went with the old one');
    assert.equal(again.key_fingerprint, agent!.keyFingerprint);
  });

  it('shows a killed agent offline, and a frozen one offline within three heartbeats', async () => {
    assert.equal((await orch.api('POST', '/agents/web-1', { token, body: { status: 'accepted' } })).status, 200);
    await eventually('online', async () => (await get('web-1'))?.online === true);
    agent!.child.kill('SIGSTOP');
    const frozenAt = Date.now();
    await eventually('offline after missed heartbeats', async () => (await get('web-1'))?.online === false, 10_000);
    assert.ok(Date.now() - frozenAt < 6_000, `offline after ${Date.now() - frozenAt} ms with 1 s heartbeats`);
    agent!.child.kill('SIGCONT');
    await eventually('back online after it thaws', async () => (await get('web-1'))?.online === true, 70_000);
    await agent!.kill('SIGKILL');
    await eventually('offline once killed', async () => (await get('web-1'))?.online === false, 5_000);
  });
});

describe('an orchestrator restart', () => {
  let dir: string;
  let serve: ServeChild | undefined;
  const agents: AgentProcess[] = [];
  after(async () => {
    for (const a of agents) await a.dispose();
    await serve?.kill('SIGKILL');
    removeDir(dir);
  });

  it('agents reconnect by themselves and nothing accepted loses its status or tags', { timeout: 120_000 }, async () => {
    dir = tempDir('corral-restart-');
    const adminKey = makeKey();
    writeFileSync(path.join(dir, 'admin.pub'), adminKey.publicLine + '\n');
    const port = await freePort();
    const args = ['--http', '--bind', '127.0.0.1', '--port', String(port), '--data-dir', path.join(dir, 'data'), '--admin-key', path.join(dir, 'admin.pub'), '--log-level', 'warn'];
    serve = await startServe(args, cleanEnv());
    const api = makeApi(serve.url);
    const signIn = async () => {
      const c = await api('POST', '/auth/challenge', { body: { operator_id: 'admin' } });
      return (await api('POST', '/auth/verify', { body: { operator_id: 'admin', nonce: c.json.nonce, signature: adminKey.sign(c.json.message) } })).json.token as string;
    };
    let token = await signIn();
    for (const id of ['db-1', 'db-2']) agents.push(await startAgentProcess({ orchestratorUrl: serve.url, nodeId: id }));
    for (const id of ['db-1', 'db-2']) {
      await eventually(`${id} enrolled`, async () => (await api('GET', `/agents/${id}`, { token })).status === 200);
      assert.equal((await api('POST', `/agents/${id}`, { token, body: { status: 'accepted' } })).status, 200);
      assert.equal((await api('PUT', `/agents/${id}/tags`, { token, body: { role: 'db', shard: id } })).status, 200);
    }

    await serve.kill('SIGKILL');
    serve = await startServe(args, cleanEnv());
    token = await signIn();
    for (const id of ['db-1', 'db-2']) {
      const row = await eventually(`${id} back online`, async () => {
        const res = await api('GET', `/agents/${id}`, { token });
        return res.json?.online && res.json;
      }, 70_000);
      assert.equal(row.status, 'accepted');
      assert.deepEqual(row.tags, { role: 'db', shard: id });
    }
  });
});
