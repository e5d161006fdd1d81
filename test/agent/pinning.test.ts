// Certificate pinning on the agent link: a real https + wss server with a self-signed
// certificate made like the orchestrator makes its own (selfsigned, EC P-256).
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { after, afterEach, before, describe, it } from 'node:test';
import { generate } from 'selfsigned';
import { startAgent, type AgentHandle } from '../../agent/index.js';
import { FakeHub } from './support/fake-hub.js';
import { captureLog, LEVEL } from './support/log-capture.js';
import { removeDir, tempDir } from './support/temp.js';

async function selfSigned(): Promise<{ key: string; cert: string; fingerprint: string }> {
  const pems = await generate([{ name: 'commonName', value: 'Corral test orchestrator' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
    ],
  });
  return { key: pems.private, cert: pems.cert, fingerprint: new X509Certificate(pems.cert).fingerprint256 };
}

describe('agent link over https', () => {
  let tls: { key: string; cert: string; fingerprint: string };
  let other: { fingerprint: string };
  let hub: FakeHub;
  let agent: AgentHandle | null = null;
  const dirs: string[] = [];

  before(async () => {
    [tls, other] = await Promise.all([selfSigned(), selfSigned()]);
    hub = await FakeHub.start({ status: 'accepted', tls });
  });
  afterEach(async () => {
    await agent?.stop();
    agent = null;
  });
  after(async () => {
    await hub.close();
    dirs.forEach(removeDir);
  });

  function stateDir(): string {
    const d = tempDir();
    dirs.push(d);
    return d;
  }

  it('connects when the pinned fingerprint matches the certificate', async () => {
    assert.match(hub.url, /^https:/);
    const before = hub.connections.length;
    agent = await startAgent({ stateDir: stateDir(), orchestrator: hub.url, fingerprint: tls.fingerprint, nodeId: 'pinned', discoveryPort: null, logger: captureLog().logger });
    await hub.waitUntil(() => hub.connections.length > before && hub.last!.signatureOk === true, 5000, 'an authenticated link');
    await hub.waitUntil(() => hub.last!.messages.some((m) => m.type === 'attributes'), 5000, 'attributes');
    assert.equal(agent.linkState, 'accepted');
  });

  it('never sends the auth message to a server whose certificate does not match', async () => {
    const before = hub.connections.length;
    const log = captureLog();
    agent = await startAgent({ stateDir: stateDir(), orchestrator: hub.url, fingerprint: other.fingerprint, nodeId: 'wrong-pin', discoveryPort: null, logger: log.logger });
    const line = await log.waitFor((l) => l.level === LEVEL.error && /fingerprint/.test(l.msg ?? ''));
    assert.equal(line.actual, tls.fingerprint);
    assert.match(line.msg!, /refusing to talk to it/);
    const retry = await log.waitFor((l) => typeof l.delay_ms === 'number');
    assert.equal(retry.delay_ms, 60_000, 'a wrong certificate is not retried fast');
    assert.equal(hub.connections.length, before, 'no WebSocket was even opened');
    assert.ok(!hub.connections.some((c) => c.auth?.node_id === 'wrong-pin'));
    assert.notEqual(agent.linkState, 'accepted');
  });

  it('refuses to dial https without a fingerprint', async () => {
    const before = hub.connections.length;
    const log = captureLog();
    agent = await startAgent({ stateDir: stateDir(), orchestrator: hub.url, nodeId: 'no-pin', discoveryPort: null, logger: log.logger });
    assert.equal(agent.linkState, 'refused');
    assert.ok(log.find((l) => l.level === LEVEL.error && /no certificate fingerprint is configured/.test(l.msg ?? '')));
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(hub.connections.length, before);
  });
});
