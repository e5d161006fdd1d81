// The agent against a real WebSocket server on loopback (support/fake-hub.ts) that speaks
// the hello/auth/welcome handshake and checks the Ed25519 signature with node:crypto.
import assert from 'node:assert/strict';
import os from 'node:os';
import { after, afterEach, describe, it } from 'node:test';
import { startAgent, type AgentHandle, type AgentOptions } from '../../agent/index.js';
import { keyFingerprint } from '../../common/node/key-fingerprint.js';
import { PACKAGE_VERSION } from '../../common/node/package-root.js';
import { AGENT_LINK_PATH, LINK_CLOSE, MAX_FRAME_BYTES, PROTOCOL_VERSION } from '../../common/protocol.js';
import { FakeHub, type FakeHubOptions } from './support/fake-hub.js';
import { captureLog, LEVEL, type CapturedLog } from './support/log-capture.js';
import { removeDir, tempDir } from './support/temp.js';

const dirs: string[] = [];
let agent: AgentHandle | null = null;
let hub: FakeHub | null = null;

async function setup(hubOptions: FakeHubOptions, agentOptions: Partial<AgentOptions> = {}): Promise<{ hub: FakeHub; agent: AgentHandle; log: CapturedLog }> {
  hub = await FakeHub.start(hubOptions);
  const log = captureLog();
  const stateDir = tempDir();
  dirs.push(stateDir);
  agent = await startAgent({
    stateDir,
    orchestrator: hub.url,
    nodeId: 'link-test',
    discoveryPort: null,
    metricsIntervalS: 0.1,
    logger: log.logger,
    ...agentOptions,
  });
  return { hub, agent, log };
}

afterEach(async () => {
  await agent?.stop();
  await hub?.close();
  agent = null;
  hub = null;
});
after(() => dirs.forEach(removeDir));

describe('agent link', () => {
  it('authenticates with a valid signature, then sends attributes and metrics once accepted', async () => {
    const { hub, agent } = await setup({ status: 'accepted' });
    await hub.waitUntil(() => hub.all('metrics').length > 0, 5000, 'metrics');
    const conn = hub.last!;
    assert.equal(conn.path, AGENT_LINK_PATH);
    assert.equal(conn.signatureOk, true, 'the hub verified the Ed25519 signature over agentAuthMessage(nonce, node_id)');
    const auth = conn.auth!;
    assert.equal(auth.node_id, 'link-test');
    assert.equal(auth.protocol_version, PROTOCOL_VERSION);
    assert.equal(auth.agent_version, PACKAGE_VERSION);
    assert.equal(auth.hostname, os.hostname());
    const raw = Buffer.from(auth.public_key, 'base64');
    assert.equal(raw.length, 32);
    assert.equal(keyFingerprint(raw), agent.keyFingerprint);

    const types = conn.messages.map((m) => m.type);
    assert.equal(types[0], 'auth');
    assert.equal(types[1], 'attributes', `attributes come first after the welcome: ${types.join(',')}`);
    const attributes = hub.all('attributes')[0]!.attributes;
    assert.equal(attributes.kernel, os.release());
    assert.equal(attributes.cpu_count, os.cpus().length);
    const sample = hub.all('metrics')[0]!.samples[0]!;
    assert.ok(sample.cpu_percent >= 0 && sample.cpu_percent <= 100);
    assert.equal(agent.linkState, 'accepted');
    assert.equal(agent.approvalStatus, 'accepted');
  });

  it('sends nothing but pings while pending or rejected, and starts the flow on a status change', async () => {
    const { hub, agent } = await setup({ status: 'pending', heartbeatS: 0.3 });
    await hub.waitUntil(() => hub.all('ping').length >= 1, 3000, 'a ping');
    assert.equal(agent.linkState, 'pending');
    assert.deepEqual([...new Set(hub.last!.messages.map((m) => m.type))], ['auth', 'ping']);
    assert.ok(agent.bufferedSamples > 0, 'metrics are taken and kept while pending');

    hub.setStatus('accepted');
    await hub.waitUntil(() => hub.all('metrics').length > 0, 3000, 'metrics after accept');
    assert.equal(hub.all('attributes').length, 1);
    const types = hub.last!.messages.map((m) => m.type).filter((t) => t !== 'ping');
    assert.deepEqual(types.slice(0, 3), ['auth', 'attributes', 'metrics']);
    // The backlog from the pending time arrives in one message, oldest first.
    const backlog = hub.all('metrics')[0]!.samples;
    assert.ok(backlog.length >= 2, `backlog of ${backlog.length}`);
    assert.deepEqual(
      backlog.map((s) => s.ts),
      [...backlog.map((s) => s.ts)].sort((a, b) => a - b),
    );

    hub.setStatus('rejected');
    await new Promise((r) => setTimeout(r, 50));
    const before = hub.last!.messages.length;
    await new Promise((r) => setTimeout(r, 700));
    const after = hub.last!.messages.slice(before);
    assert.ok(after.every((m) => m.type === 'ping'), `only pings once rejected: ${after.map((m) => m.type).join(',')}`);
    assert.equal(agent.linkState, 'rejected');
  });

  it('logs and ignores garbage from the orchestrator without dropping the link', async () => {
    const { hub, agent, log } = await setup({ status: 'accepted' });
    await hub.waitUntil(() => hub.all('metrics').length > 0, 5000, 'metrics');
    const ws = hub.last!.ws;
    const garbage = [
      'not json at all',
      '[]',
      '{"type":"nope"}',
      '{"no":"type"}',
      '{"type":"welcome","status":"maybe","heartbeat_s":10}',
      '{"type":"status","status":5}',
      '{"type":"pong","ts":"yesterday"}',
      '{"type":"hello"}',
      JSON.stringify({ type: 'hello', protocol_version: PROTOCOL_VERSION, nonce: 'again' }),
      JSON.stringify({ type: 'welcome', status: 'pending', heartbeat_s: 10 }),
    ];
    for (const g of garbage) ws.send(g);
    ws.send(Buffer.from([0, 1, 2, 3]), { binary: true });
    const metricsBefore = hub.all('metrics').length;
    await hub.waitUntil(() => hub.all('metrics').length > metricsBefore + 2, 3000, 'metrics keep flowing');
    assert.equal(hub.connections.length, 1, 'still the same connection');
    assert.equal(agent.linkState, 'accepted', 'a second welcome did not change the status');
    const warnings = log.lines.filter((l) => l.level === LEVEL.warn && /ignoring/.test(l.msg ?? ''));
    assert.ok(warnings.length >= garbage.length, `${warnings.length} warnings`);
    assert.ok(log.find((l) => l.msg === 'ignoring a binary frame from the orchestrator'));

    // A frame over the limit closes the socket (1009); the agent reconnects instead of dying.
    ws.send('x'.repeat(MAX_FRAME_BYTES + 10));
    await hub.waitUntil(() => hub.connections.length === 2 && hub.last!.signatureOk === true, 5000, 'a second connection');
    assert.equal(hub.connections[0]!.closeCode, 1009);
    await hub.waitUntil(() => hub.last!.messages.some((m) => m.type === 'attributes'), 3000, 'attributes re-sent on the new link');
  });

  it('reconnects with backoff when the orchestrator closes the link', async () => {
    const { hub, agent, log } = await setup({ status: 'accepted' });
    await hub.waitUntil(() => hub.all('attributes').length === 1, 5000, 'attributes');
    hub.last!.ws.close(1011, 'restarting');
    const retry = await log.waitFor((l) => typeof l.delay_ms === 'number');
    assert.ok((retry.delay_ms as number) >= 0 && (retry.delay_ms as number) < 1000, `first retry within the 1 s base: ${retry.delay_ms}`);
    await hub.waitUntil(() => hub.connections.length === 2 && hub.all('attributes').length === 2, 5000, 'reconnected and re-sent attributes');
    assert.equal(hub.connections[1]!.signatureOk, true);
    assert.equal(agent.connections, 2);
    assert.ok(log.find((l) => l.code === 1011 && l.reason === 'restarting'), 'the close is logged with its code and reason');
  });

  it('buffers metrics while the orchestrator is away and sends them when it is back', async () => {
    const { hub: first, agent } = await setup({ status: 'accepted' }, { backoff: { baseMs: 300, capMs: 300 } });
    await first.waitUntil(() => first.all('metrics').length > 0, 5000, 'metrics');
    const port = Number(new URL(first.url).port);
    await first.close();
    await new Promise((r) => setTimeout(r, 600));
    assert.ok(agent.bufferedSamples >= 3, `${agent.bufferedSamples} samples buffered while down`);
    const lastSentTs = Math.max(...first.all('metrics').flatMap((m) => m.samples.map((s) => s.ts)));
    // Same port: the agent keeps dialling the URL it was given.
    const again = await FakeHub.startOn(port, { status: 'accepted' });
    hub = again; // closed by afterEach
    await again.waitUntil(() => again.all('metrics').length > 0, 5000, 'metrics after the outage');
    const backlog = again.all('metrics')[0]!.samples;
    assert.ok(backlog.length >= 3, `backlog of ${backlog.length}`);
    assert.ok(backlog[0]!.ts > lastSentTs, 'nothing is sent twice');
  });

  it('refuses a protocol major mismatch, naming both versions, and retries slowly', async () => {
    const theirs = `${Number(PROTOCOL_VERSION.split('.')[0]) + 1}.0`;
    const { hub, agent, log } = await setup({ protocolVersion: theirs });
    const line = await log.waitFor((l) => l.level === LEVEL.error && typeof l.msg === 'string' && l.msg.includes(theirs));
    assert.ok(line.msg!.includes(PROTOCOL_VERSION), line.msg);
    assert.equal(line.orchestrator_protocol, theirs);
    assert.equal(line.agent_protocol, PROTOCOL_VERSION);
    await hub.waitUntil(() => hub.last!.closeCode !== null, 3000, 'the agent closes');
    assert.equal(hub.last!.closeCode, LINK_CLOSE.protocolMismatch);
    assert.equal(hub.last!.auth, null, 'no auth is sent to an orchestrator of another major version');
    const retry = await log.waitFor((l) => typeof l.delay_ms === 'number');
    assert.equal(retry.delay_ms, 60_000, 'the next attempt waits the backoff cap');
    assert.equal(agent.linkState, 'waiting');
  });

  it('retries slowly when the orchestrator refuses the key', async () => {
    const { hub, log } = await setup({ status: 'accepted' });
    await hub.waitUntil(() => hub.all('attributes').length === 1, 5000, 'attributes');
    hub.last!.ws.close(LINK_CLOSE.keyMismatch, 'key mismatch');
    const line = await log.waitFor((l) => l.code === LINK_CLOSE.keyMismatch);
    assert.match(line.msg!, /different key/);
    const retry = await log.waitFor((l) => typeof l.delay_ms === 'number');
    assert.equal(retry.delay_ms, 60_000);
  });

  it('drops a silent link after 3 heartbeats and reconnects', async () => {
    const { hub, log } = await setup({ status: 'pending', heartbeatS: 0.3, silentAfterWelcome: true });
    const line = await log.waitFor((l) => /nothing heard from the orchestrator/.test(l.msg ?? ''), 4000);
    assert.ok((line.silent_ms as number) > 900, `silent for ${line.silent_ms} ms, more than 3 heartbeats`);
    hub.silent = false;
    await hub.waitUntil(() => hub.connections.length >= 2 && hub.last!.signatureOk === true, 3000, 'reconnected');
  });
});
