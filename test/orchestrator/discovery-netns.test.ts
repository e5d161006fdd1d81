// Discovery across hosts: an orchestrator and two agents, each in a network
// namespace this test makes, joined by a bridge. The orchestrator broadcasts only
// on interfaces the test made, and the agents, configured with no orchestrator,
// answer and join it. Skipped (saying why) where namespaces cannot be made.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { startAgentProcess, type AgentProcess } from '../helpers/agent-process.js';
import { cleanEnv, startServe, type ServeChild } from '../helpers/child.js';
import { makeKey } from '../helpers/keys.js';
import { makeApi, removeDir, tempDir } from '../helpers/orchestrator.js';

const id = (process.pid % 10000).toString(36);
const subnet = `10.251.${20 + (process.pid % 200)}`;
const bridge = `crlbr${id}`;
const hosts = [
  { ns: `crl-o-${id}`, veth: `crlo${id}`, ip: `${subnet}.2` },
  { ns: `crl-a-${id}`, veth: `crla${id}`, ip: `${subnet}.11` },
  { ns: `crl-b-${id}`, veth: `crlb${id}`, ip: `${subnet}.12` },
];

function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: 'pipe' });
}

function cannotMakeNamespaces(): string | undefined {
  if (process.platform !== 'linux') return 'network namespaces need Linux';
  if (process.getuid?.() !== 0) return 'making network namespaces needs root';
  try {
    ip('netns', 'add', `crl-probe-${id}`);
    ip('netns', 'del', `crl-probe-${id}`);
    return undefined;
  } catch (err) {
    return `ip netns add failed: ${(err as Error).message.split('\n')[0]}`;
  }
}

function teardown(): void {
  for (const h of hosts) {
    try {
      ip('netns', 'del', h.ns);
    } catch {
      // not made
    }
  }
  try {
    ip('link', 'del', bridge);
  } catch {
    // not made
  }
}

function setUp(): void {
  teardown();
  ip('link', 'add', bridge, 'type', 'bridge');
  ip('addr', 'add', `${subnet}.1/24`, 'dev', bridge);
  ip('link', 'set', bridge, 'up');
  for (const h of hosts) {
    ip('netns', 'add', h.ns);
    ip('link', 'add', h.veth, 'type', 'veth', 'peer', 'name', `${h.veth}p`);
    ip('link', 'set', `${h.veth}p`, 'netns', h.ns);
    ip('link', 'set', h.veth, 'master', bridge);
    ip('link', 'set', h.veth, 'up');
    ip('-n', h.ns, 'link', 'set', `${h.veth}p`, 'name', 'eth0');
    ip('-n', h.ns, 'addr', 'add', `${h.ip}/24`, 'dev', 'eth0');
    ip('-n', h.ns, 'link', 'set', 'eth0', 'up');
    ip('-n', h.ns, 'link', 'set', 'lo', 'up');
  }
}

const skip = cannotMakeNamespaces();

describe('discovery across hosts in network namespaces', { skip }, () => {
  let dir: string | undefined;
  let serve: ServeChild | undefined;
  const agents: AgentProcess[] = [];

  after(async () => {
    for (const a of agents) await a.dispose();
    await serve?.kill('SIGKILL');
    teardown();
    if (dir) removeDir(dir);
  });

  it('POST /discover hears every agent on the segment, and unconfigured agents join as pending', { timeout: 90_000 }, async () => {
    setUp();
    dir = tempDir('corral-netns-');
    const adminKey = makeKey();
    writeFileSync(path.join(dir, 'admin.pub'), adminKey.publicLine + '\n');
    const [orch, a, b] = hosts as [(typeof hosts)[0], (typeof hosts)[0], (typeof hosts)[0]];
    serve = await startServe(
      ['--http', '--bind', '0.0.0.0', '--port', '7390', '--data-dir', path.join(dir, 'data'), '--admin-key', path.join(dir, 'admin.pub'), '--log-level', 'warn'],
      // Inside its own namespace the orchestrator's only interfaces are the test's.
      { ...cleanEnv(), CORRAL_DISCOVERY_BROADCAST: 'true' },
      30_000,
      ['ip', 'netns', 'exec', orch.ns],
    );
    for (const [host, nodeId] of [[a, 'far-a'], [b, 'far-b']] as const) {
      agents.push(await startAgentProcess({ nodeId, discoveryPort: 7391, prefix: ['ip', 'netns', 'exec', host.ns], metricsIntervalS: 5 }));
    }
    const api = makeApi(`http://${orch.ip}:7390`);
    const c = await api('POST', '/auth/challenge', { body: { operator_id: 'admin' } });
    const token = (await api('POST', '/auth/verify', { body: { operator_id: 'admin', nonce: c.json.nonce, signature: adminKey.sign(c.json.message) } })).json.token;

    const found = await api('POST', '/discover', { token, body: { wait_ms: 2000 } });
    assert.equal(found.status, 200, found.text);
    assert.ok(found.json.sent_to.includes(`${subnet}.255`), `broadcast on the segment: ${found.json.sent_to}`);
    const byId = new Map(found.json.items.map((i: { node_id: string }) => [i.node_id, i]));
    for (const [host, nodeId, agent] of [[a, 'far-a', agents[0]!], [b, 'far-b', agents[1]!]] as const) {
      const answer = byId.get(nodeId) as { address: string; enrolled: boolean; key_fingerprint: string } | undefined;
      assert.ok(answer, `${nodeId} answered: ${found.text}`);
      assert.equal(answer.address, host.ip);
      assert.equal(answer.enrolled, false);
      assert.equal(answer.key_fingerprint, agent.keyFingerprint);
    }

    const deadline = Date.now() + 30_000;
    for (;;) {
      const pending = (await api('GET', '/agents?status=pending', { token })).json.items.map((i: { node_id: string; online: boolean; address: string }) => `${i.node_id}@${i.address}:${i.online}`);
      if (pending.includes(`far-a@${a.ip}:true`) && pending.includes(`far-b@${b.ip}:true`)) break;
      if (Date.now() > deadline) assert.fail(`agents did not join: ${pending.join(', ')}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    // Heard again, they now say they are enrolled and the orchestrator knows them.
    const again = await api('POST', '/discover', { token, body: { wait_ms: 1000 } });
    for (const item of again.json.items as { enrolled: boolean; known: boolean }[]) {
      assert.equal(item.enrolled, true);
      assert.equal(item.known, true);
    }
  });
});
