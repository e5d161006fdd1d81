// The discovery listener with real UDP on loopback, and joining through it.
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { DiscoveryListener, MAX_DATAGRAM_BYTES, parseProbe } from '../../agent/discovery.js';
import { startAgent, type AgentHandle } from '../../agent/index.js';
import { DISCOVERY_MAGIC, type DiscoveryAnswer, type DiscoveryProbe } from '../../common/protocol.js';
import { FakeHub } from './support/fake-hub.js';
import { captureLog } from './support/log-capture.js';
import { removeDir, tempDir } from './support/temp.js';

/** A UDP client that sends datagrams to the listener and collects what comes back. */
class Prober {
  readonly answers: DiscoveryAnswer[] = [];
  private constructor(private readonly socket: dgram.Socket) {
    socket.on('message', (msg) => this.answers.push(JSON.parse(msg.toString()) as DiscoveryAnswer));
  }

  static async open(): Promise<Prober> {
    const socket = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    return new Prober(socket);
  }

  send(port: number, data: Buffer | string): Promise<void> {
    return new Promise((resolve, reject) => this.socket.send(typeof data === 'string' ? Buffer.from(data) : data, port, '127.0.0.1', (err) => (err ? reject(err) : resolve())));
  }

  async waitForAnswer(nonce: string, timeoutMs = 2000): Promise<DiscoveryAnswer> {
    const end = Date.now() + timeoutMs;
    while (Date.now() < end) {
      const a = this.answers.find((x) => x.nonce === nonce);
      if (a) return a;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`no answer to ${nonce}`);
  }

  close(): void {
    this.socket.close();
  }
}

function probe(nonce: string, extra: Partial<DiscoveryProbe> = {}): string {
  return JSON.stringify({ magic: DISCOVERY_MAGIC, type: 'probe', nonce, orchestrator_url: 'http://127.0.0.1:1', fingerprint: null, ...extra });
}

const IDENTITY = { node_id: 'disco', hostname: 'disco-host', addresses: ['10.0.0.9'], agent_version: '0.1.0', key_fingerprint: 'SHA256:abc', enrolled: true };

describe('discovery listener', () => {
  let listener: DiscoveryListener;
  let port: number;
  let prober: Prober;
  const heard: DiscoveryProbe[] = [];

  before(async () => {
    listener = new DiscoveryListener({ port: 0, address: '127.0.0.1', log: captureLog().logger, identity: () => IDENTITY, onProbe: (p) => heard.push(p), maxAnswersPerSecond: 1000 });
    port = await listener.start();
    prober = await Prober.open();
  });
  after(async () => {
    prober.close();
    await listener.stop();
  });

  it('answers a probe by unicast, echoing the nonce', async () => {
    await prober.send(port, probe('nonce-1'));
    const answer = await prober.waitForAnswer('nonce-1');
    assert.deepEqual(answer, { magic: DISCOVERY_MAGIC, type: 'answer', nonce: 'nonce-1', ...IDENTITY });
    assert.equal(heard.at(-1)?.nonce, 'nonce-1');
  });

  it('ignores garbage datagrams and keeps working', async () => {
    const ignoredBefore = listener.ignored;
    const garbage: (string | Buffer)[] = [
      'not json',
      '',
      Buffer.from([0xff, 0xfe, 0x00, 0x01]),
      '[]',
      'null',
      '"probe"',
      JSON.stringify({ magic: 'someone-else', type: 'probe', nonce: 'g1', orchestrator_url: 'http://x', fingerprint: null }),
      JSON.stringify({ magic: DISCOVERY_MAGIC, type: 'answer', nonce: 'g2', orchestrator_url: 'http://x', fingerprint: null }),
      probe('g3', { nonce: 42 as unknown as string }),
      probe('g4', { fingerprint: 7 as unknown as string }),
      probe('g5', { orchestrator_url: 'h'.repeat(1500) }),
      probe('g6', { orchestrator_url: undefined }),
      probe('x'.repeat(200)),
      JSON.stringify({ magic: DISCOVERY_MAGIC, type: 'probe', nonce: 'g7', orchestrator_url: 'http://x', fingerprint: null, pad: 'p'.repeat(MAX_DATAGRAM_BYTES) }),
      Buffer.alloc(8000, 0x7b),
    ];
    for (const g of garbage) await prober.send(port, g);
    await prober.send(port, probe('after-garbage'));
    await prober.waitForAnswer('after-garbage');
    assert.equal(listener.ignored - ignoredBefore, garbage.length, 'every bad datagram was seen and ignored');
    assert.deepEqual(
      prober.answers.map((a) => a.nonce).filter((n) => n.startsWith('g') || n.startsWith('xx')),
      [],
      'nothing answered the garbage',
    );
  });

  it('limits how fast it answers, so it cannot be used as a reflector', async () => {
    const limited = new DiscoveryListener({ port: 0, address: '127.0.0.1', log: captureLog().logger, identity: () => IDENTITY, maxAnswersPerSecond: 3 });
    const p = await limited.start();
    for (let i = 0; i < 20; i++) await prober.send(p, probe(`burst-${i}`));
    await new Promise((r) => setTimeout(r, 200));
    const answered = prober.answers.filter((a) => a.nonce.startsWith('burst-')).length;
    assert.ok(answered >= 3 && answered <= 4, `${answered} answers to a burst of 20`);
    await limited.stop();
  });
});

describe('parseProbe', () => {
  it('accepts a well-formed probe and keeps only its known fields', () => {
    const r = parseProbe(Buffer.from(probe('n', { fingerprint: 'AA:BB', extra: 1 } as Partial<DiscoveryProbe>)));
    assert.deepEqual(r, { ok: true, probe: { magic: DISCOVERY_MAGIC, type: 'probe', nonce: 'n', orchestrator_url: 'http://127.0.0.1:1', fingerprint: 'AA:BB' } });
  });

  it('names what is wrong with anything else', () => {
    assert.deepEqual(parseProbe(Buffer.alloc(MAX_DATAGRAM_BYTES + 1)), { ok: false, reason: `too large (${MAX_DATAGRAM_BYTES + 1} bytes)` });
    assert.deepEqual(parseProbe(Buffer.from('{')), { ok: false, reason: 'not JSON' });
    assert.deepEqual(parseProbe(Buffer.from(probe(''))), { ok: false, reason: 'bad nonce' });
  });
});

describe('joining through discovery', () => {
  let hub: FakeHub;
  let prober: Prober;
  let agent: AgentHandle | null = null;
  let stateDir: string;

  before(async () => {
    hub = await FakeHub.start({ status: 'pending' });
    prober = await Prober.open();
    stateDir = tempDir();
  });
  afterEach(async () => {
    await agent?.stop();
    agent = null;
  });
  after(async () => {
    prober.close();
    await hub.close();
    removeDir(stateDir);
  });

  function start(log = captureLog()): Promise<AgentHandle> {
    return startAgent({ stateDir, nodeId: 'joiner', discoveryPort: 0, discoveryAddress: '127.0.0.1', logger: log.logger });
  }

  it('an agent without an orchestrator joins the one it heard, and remembers it', async () => {
    agent = await start();
    assert.equal(agent.linkState, 'unconfigured');
    const port = agent.discoveryPort!;

    // An https probe without a fingerprint is answered but not joined: there would be nothing to pin.
    await prober.send(port, probe('unpinned', { orchestrator_url: 'https://127.0.0.1:9' }));
    assert.equal((await prober.waitForAnswer('unpinned')).enrolled, false);
    assert.equal(agent.orchestrator, null);

    await prober.send(port, probe('join-1', { orchestrator_url: hub.url }));
    const answer = await prober.waitForAnswer('join-1');
    assert.equal(answer.enrolled, false, 'not enrolled when the probe arrived');
    assert.equal(answer.node_id, 'joiner');
    assert.equal(answer.key_fingerprint, agent.keyFingerprint);
    await hub.waitUntil(() => hub.connections.some((c) => c.auth?.node_id === 'joiner' && c.signatureOk === true), 5000, 'the joined agent links');
    assert.equal(agent.orchestrator, hub.url);
    const saved = JSON.parse(readFileSync(path.join(stateDir, 'state.json'), 'utf8')) as { orchestrator: string; heard_from: string };
    assert.equal(saved.orchestrator, hub.url);
    assert.equal(saved.heard_from, '127.0.0.1');

    // Enrolled now: it answers, and does not move to another orchestrator that probes.
    await prober.send(port, probe('join-2', { orchestrator_url: 'http://127.0.0.1:2' }));
    assert.equal((await prober.waitForAnswer('join-2')).enrolled, true);
    assert.equal(agent.orchestrator, hub.url);
    assert.equal(JSON.parse(readFileSync(path.join(stateDir, 'state.json'), 'utf8')).orchestrator, hub.url);
  });

  it('rejoins the remembered orchestrator after a restart, with the same key', async () => {
    assert.ok(existsSync(path.join(stateDir, 'state.json')));
    const before = hub.connections.filter((c) => c.auth?.node_id === 'joiner');
    const log = captureLog();
    agent = await start(log);
    assert.equal(agent.orchestrator, hub.url);
    assert.ok(log.find((l) => /rejoining/.test(l.msg ?? '')));
    await hub.waitUntil(() => hub.connections.filter((c) => c.auth?.node_id === 'joiner' && c.signatureOk).length > before.length, 5000, 'rejoined');
    assert.equal(hub.last!.auth!.public_key, before[0]!.auth!.public_key);
  });
});
