// The agent link's edge: what a misbehaving or hostile peer can send. The happy
// path with real agent processes is in test/integration/agents-lifecycle.test.ts.
import assert from 'node:assert/strict';
import { generateKeyPairSync, sign, type KeyObject, createPublicKey } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { AGENT_LINK_PATH, agentAuthMessage, encodeTerminalFrame, LINK_CLOSE, PROTOCOL_VERSION, TERMINAL_FRAME } from '../../common/protocol.js';
import { assertProblem, startTestOrchestrator, type TestOrchestrator } from '../helpers/orchestrator.js';

interface Peer {
  ws: WebSocket;
  messages: Record<string, unknown>[];
  closed: Promise<{ code: number; reason: string }>;
  next(type: string, timeoutMs?: number): Promise<Record<string, unknown>>;
}

function connect(orch: TestOrchestrator): Promise<Peer> {
  const ws = new WebSocket(orch.url.replace(/^http/, 'ws') + AGENT_LINK_PATH);
  const messages: Record<string, unknown>[] = [];
  const waiters: (() => void)[] = [];
  ws.on('message', (data) => {
    messages.push(JSON.parse(String(data)) as Record<string, unknown>);
    waiters.splice(0).forEach((w) => w());
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
  const peer: Peer = {
    ws,
    messages,
    closed,
    async next(type, timeoutMs = 3000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = messages.find((m) => m.type === type);
        if (found) {
          messages.splice(messages.indexOf(found), 1);
          return found;
        }
        if (Date.now() > deadline) throw new Error(`no ${type} message; got ${JSON.stringify(messages)}`);
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 100);
        });
      }
    },
  };
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(peer));
    ws.once('error', reject);
  });
}

function identity(): { privateKey: KeyObject; publicB64: string } {
  const { privateKey } = generateKeyPairSync('ed25519');
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  return { privateKey, publicB64: Buffer.from(spki.subarray(spki.length - 32)).toString('base64') };
}

function auth(nonce: string, nodeId: string, id: ReturnType<typeof identity>, overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    type: 'auth',
    node_id: nodeId,
    public_key: id.publicB64,
    signature: sign(null, Buffer.from(agentAuthMessage(nonce, nodeId)), id.privateKey).toString('base64'),
    protocol_version: PROTOCOL_VERSION,
    agent_version: '0.0.0-test',
    hostname: nodeId,
    ...overrides,
  });
}

let orch: TestOrchestrator;
let admin: string;
before(async () => {
  orch = await startTestOrchestrator();
  admin = await orch.adminToken();
});
after(() => orch.close());

describe('agent link handshake', () => {
  it('says hello with the protocol version and a nonce', async () => {
    const peer = await connect(orch);
    const hello = await peer.next('hello');
    assert.equal(hello.protocol_version, PROTOCOL_VERSION);
    assert.equal(typeof hello.nonce, 'string');
    peer.ws.close();
  });

  it('refuses a different protocol major, naming both versions', async () => {
    const peer = await connect(orch);
    const hello = await peer.next('hello');
    peer.ws.send(auth(String(hello.nonce), 'future-agent', identity(), { protocol_version: '9.0' }));
    const error = await peer.next('error');
    assert.match(String(error.message), /9\.0/);
    assert.match(String(error.message), new RegExp(PROTOCOL_VERSION.replace('.', '\\.')));
    assert.equal((await peer.closed).code, LINK_CLOSE.protocolMismatch);
    assertProblem(await orch.api('GET', '/agents/future-agent', { token: admin }), 404);
  });

  it('refuses a signature over another nonce, and records the attempt', async () => {
    const peer = await connect(orch);
    await peer.next('hello');
    peer.ws.send(auth('not-the-nonce', 'forger', identity()));
    assert.equal((await peer.closed).code, LINK_CLOSE.authFailed);
    const audit = await orch.api('GET', '/audit?action=agent.auth&target=forger', { token: admin });
    assert.equal(audit.json.items[0]?.outcome, 'denied');
    assertProblem(await orch.api('GET', '/agents/forger/attributes', { token: admin }), 404, 'agent-not-found');
  });

  it('records first contact as pending and pins the key; another key for the same node is refused and recorded', async () => {
    const first = identity();
    const a = await connect(orch);
    a.ws.send(auth(String((await a.next('hello')).nonce), 'pinned', first));
    assert.equal((await a.next('welcome')).status, 'pending');
    const list = await orch.api('GET', '/agents?status=pending', { token: admin });
    const row = list.json.items.find((i: { node_id: string }) => i.node_id === 'pinned');
    assert.ok(row, 'pending agent listed');
    assert.equal(row.online, true);
    assert.match(row.key_fingerprint, /^SHA256:/);

    const b = await connect(orch);
    b.ws.send(auth(String((await b.next('hello')).nonce), 'pinned', identity()));
    assert.equal((await b.next('error')).code, 'key-mismatch');
    assert.equal((await b.closed).code, LINK_CLOSE.keyMismatch);
    const audit = await orch.api('GET', '/audit?action=agent.key_mismatch&target=pinned', { token: admin });
    assert.equal(audit.json.items.length, 1);
    assert.equal(audit.json.items[0].details.pinned_fingerprint, row.key_fingerprint);
    // The first link is untouched.
    a.ws.send(JSON.stringify({ type: 'ping', ts: 1 }));
    assert.equal((await a.next('pong')).ts, 1);
    a.ws.close();
  });
});

describe('garbage on the agent link', () => {
  it('is dropped frame by frame; the link and the orchestrator carry on', async () => {
    const id = identity();
    const peer = await connect(orch);
    const garbage: (string | Buffer)[] = [
      'not json',
      '{"no":"type"}',
      '[]',
      'null',
      '{"type":42}',
      '{"type":"launch-missiles"}',
      Buffer.from([0, 1, 2, 3]),
      JSON.stringify({ type: 'auth', node_id: 'BAD ID', public_key: 'x', signature: 'y' }).slice(0, 10),
    ];
    await peer.next('hello');
    for (const g of garbage) peer.ws.send(g);
    // The first peer is still connected and waiting for a good auth after all that.
    assert.equal(peer.ws.readyState, WebSocket.OPEN);
    const second = await connect(orch);
    second.ws.send(auth(String((await second.next('hello')).nonce), 'garbage-sender', id));
    assert.equal((await second.next('welcome')).status, 'pending');
    assert.equal((await orch.api('POST', `/agents/garbage-sender`, { token: admin, body: { status: 'accepted' } })).status, 200);
    assert.equal((await second.next('status')).status, 'accepted');
    for (const g of [...garbage, '{"type":"metrics","samples":"lots"}', '{"type":"attributes","attributes":[1,2]}', '{"type":"metrics","samples":[{"ts":"x"},null,7]}', JSON.stringify({ type: 'auth' })]) {
      second.ws.send(g);
    }
    second.ws.send(JSON.stringify({ type: 'ping', ts: 99 }));
    assert.equal((await second.next('pong')).ts, 99, 'the link still answers');
    assert.equal((await orch.api('GET', '/status')).json.status, 'ok');
    const attrs = await orch.api('GET', '/agents/garbage-sender/attributes', { token: admin });
    assert.deepEqual(attrs.json.attributes, {}, 'nothing was stored from the garbage');
    peer.ws.close();
    second.ws.close();
  });

  it('gives a pending agent nothing and stores nothing it sends but its presence', async () => {
    const peer = await connect(orch);
    peer.ws.send(auth(String((await peer.next('hello')).nonce), 'quiet-pending', identity()));
    assert.equal((await peer.next('welcome')).status, 'pending');
    peer.ws.send(JSON.stringify({ type: 'attributes', attributes: { os: 'linux', hostname: 'sneaky' } }));
    peer.ws.send(JSON.stringify({ type: 'ping', ts: 5 }));
    await peer.next('pong');
    const attrs = await orch.api('GET', '/agents/quiet-pending/attributes', { token: admin });
    assert.deepEqual(attrs.json.attributes, {});
    peer.ws.close();
  });

  it('closes a link that never authenticates within the time allowed', { timeout: 15_000 }, async () => {
    const peer = await connect(orch);
    await peer.next('hello');
    assert.equal((await peer.closed).code, LINK_CLOSE.authFailed);
  });
});

describe('terminal traffic on the agent link', () => {
  async function acceptedPeer(nodeId: string): Promise<Peer> {
    const peer = await connect(orch);
    peer.ws.send(auth(String((await peer.next('hello')).nonce), nodeId, identity()));
    await peer.next('welcome');
    assert.equal((await orch.api('POST', `/agents/${nodeId}`, { token: admin, body: { status: 'accepted' } })).status, 200);
    await peer.next('status');
    return peer;
  }

  it('drops bad terminal frames and messages; the link carries on', async () => {
    const peer = await acceptedPeer('term-garbage');
    const stranger = '0b7e5a3c-51f1-4c35-9d0a-2c1f2b7c9e10';
    peer.ws.send(encodeTerminalFrame(TERMINAL_FRAME.output, stranger, Buffer.from('who am I')), { binary: true });
    peer.ws.send(encodeTerminalFrame(TERMINAL_FRAME.input, stranger, Buffer.from('x')), { binary: true });
    peer.ws.send(Buffer.from([0, 1, 2]), { binary: true });
    peer.ws.send(Buffer.from([9, ...new Array(20).fill(0)]), { binary: true });
    for (const m of [
      { type: 'term_opened', session_id: stranger, pid: 1, shell: '/bin/sh', user: 'root' },
      { type: 'term_opened', session_id: 'nope', pid: -1 },
      { type: 'term_exit', session_id: stranger, exit_code: 'zero', signal: null },
      { type: 'term_error', session_id: stranger, message: 42 },
    ]) peer.ws.send(JSON.stringify(m));
    peer.ws.send(JSON.stringify({ type: 'ping', ts: 7 }));
    assert.equal((await peer.next('pong')).ts, 7, 'the link still answers');
    peer.ws.close();
  });

  it('answers 502 with the agent\'s reason when it cannot open a shell, and records the session closed', async () => {
    const peer = await acceptedPeer('term-refuser');
    const op = await orch.loginAs('operator');
    const opening = orch.api('POST', '/terminal/term-refuser', { token: op.token, body: { cols: 80, rows: 24, shell: '/bin/nope' } });
    const open = await peer.next('term_open');
    assert.equal(open.shell, '/bin/nope');
    peer.ws.send(JSON.stringify({ type: 'term_error', session_id: open.session_id, message: 'no such shell: /bin/nope' }));
    const res = await opening;
    assertProblem(res, 502, 'terminal-open-failed');
    assert.match(res.json.detail, /no such shell: \/bin\/nope/);
    const meta = await orch.api('GET', `/terminal/session/${String(open.session_id)}`, { token: op.token });
    assert.equal(meta.json.state, 'closed');
    assert.equal(meta.json.close_reason, 'open-failed');
    // an agent that never answers: 502 after the open timeout, and the agent is told to close
    orch.handle.services.terminals.options.openTimeoutMs = 300;
    try {
      const silent = orch.api('POST', '/terminal/term-refuser', { token: op.token, body: { cols: 80, rows: 24 } });
      const second = await peer.next('term_open');
      assertProblem(await silent, 502, 'terminal-open-failed');
      assert.equal((await peer.next('term_close')).session_id, second.session_id);
    } finally {
      delete orch.handle.services.terminals.options.openTimeoutMs;
    }
    // a pending or offline agent gets no terminal
    peer.ws.close();
    await peer.closed;
    await new Promise((r) => setTimeout(r, 100));
    assertProblem(await orch.api('POST', '/terminal/term-refuser', { token: op.token, body: { cols: 80, rows: 24 } }), 409, 'agent-offline');
    const pending = await connect(orch);
    pending.ws.send(auth(String((await pending.next('hello')).nonce), 'term-pending', identity()));
    await pending.next('welcome');
    assertProblem(await orch.api('POST', '/terminal/term-pending', { token: op.token, body: { cols: 80, rows: 24 } }), 409, 'agent-not-accepted');
    pending.ws.close();
  });
});
