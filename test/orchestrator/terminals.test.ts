// Terminal sessions end to end: a real orchestrator, a real corral-agent child process
// with real ptys, and a stream client speaking the WebSocket as a browser does.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { parseAsciicast } from '../../common/asciicast.js';
import { startAgentProcess, type AgentProcess } from '../helpers/agent-process.js';
import { processAlive } from '../helpers/child.js';
import { eventually } from '../helpers/fleet.js';
import { assertProblem, startTestOrchestrator, type TestOrchestrator } from '../helpers/orchestrator.js';
import { connectStream, type StreamClient } from '../helpers/terminal-stream.js';

const NODE = 'term-1';
// /bin/sh, not root's login bash: the test machine's dotfiles (pyenv init) can take seconds.
const SHELL = '/bin/sh';

async function refusal(p: Promise<StreamClient>): Promise<number> {
  try {
    const c = await p;
    c.close();
    return 101;
  } catch (err) {
    return (err as { status?: number }).status ?? -1;
  }
}

describe('terminal sessions', () => {
  let orch: TestOrchestrator;
  let agent: AgentProcess;
  let op: { token: string; operatorId: string };
  let viewer: string;
  let admin: string;
  const open: StreamClient[] = [];

  const terminals = () => orch.handle.services.terminals;
  const openSession = async (token = op.token, body: Record<string, unknown> = { cols: 80, rows: 24, shell: SHELL }) => orch.api('POST', `/terminal/${NODE}`, { token, body });
  const attach = async (token = op.token) => {
    const res = await openSession(token);
    assert.equal(res.status, 201, res.text);
    const stream = await connectStream(orch.url, res.json.session_id, { ticket: res.json.ticket });
    open.push(stream);
    return { session: res.json, stream };
  };
  const liveCount = async () => (await orch.api('GET', `/terminal?node_id=${NODE}&state=open`, { token: admin })).json.items.length as number;
  const prompt = async (stream: StreamClient) => {
    // A marker the shell computes, so the typed command's echo never matches it.
    stream.send('echo READY$((40+2))\r');
    await stream.waitFor('READY42');
  };

  before(async () => {
    orch = await startTestOrchestrator({ heartbeatS: 2 });
    admin = await orch.adminToken();
    op = await orch.loginAs('operator', 'term-op');
    viewer = (await orch.loginAs('viewer')).token;
    agent = await startAgentProcess({ orchestratorUrl: orch.url, nodeId: NODE });
    await eventually('agent enrolled', async () => (await orch.api('GET', `/agents/${NODE}`, { token: admin })).status === 200);
    const accepted = await orch.api('POST', `/agents/${NODE}`, { token: admin, body: { status: 'accepted' } });
    assert.equal(accepted.status, 200, accepted.text);
    await eventually('agent online', async () => (await orch.api('GET', `/agents/${NODE}`, { token: admin })).json.online);
  });
  after(async () => {
    for (const s of open) s.close();
    await agent?.dispose();
    await orch?.close();
  });

  describe('POST /api/v1/terminal/{node_id}', () => {
    it('needs authentication and the operator role', async () => {
      assertProblem(await orch.api('POST', `/terminal/${NODE}`, { body: { cols: 80, rows: 24 } }), 401);
      assertProblem(await openSession(viewer), 403, 'role-required');
    });

    it('rejects bad input and unknown or offline agents', async () => {
      assertProblem(await openSession(op.token, { cols: 0, rows: 24 }), 400);
      assertProblem(await openSession(op.token, { cols: 80, rows: 24, extra: 1 }), 400);
      assertProblem(await orch.api('POST', '/terminal/no-such-agent', { token: op.token, body: { cols: 80, rows: 24 } }), 404, 'agent-not-found');
    });

    it('opens a shell; typed input runs and its output streams back', async () => {
      const { session, stream } = await attach();
      assert.equal(session.state, 'open');
      assert.equal(session.node_id, NODE);
      assert.equal(session.operator_id, op.operatorId);
      assert.equal(session.stream_path, `/api/v1/terminal/session/${session.session_id}/stream`);
      assert.match(session.ticket, /^[A-Za-z0-9_-]{43}$/);
      stream.send('echo $((6*7))\r');
      await stream.waitFor(/[\r\n]42\r\n/);
      // resize reaches the pty
      stream.sendControl({ type: 'resize', cols: 132, rows: 50 });
      stream.send('stty size\r');
      await stream.waitFor(/[\r\n]50 132\r\n/);
      const meta = await orch.api('GET', `/terminal/session/${session.session_id}`, { token: viewer });
      assert.equal(meta.status, 200);
      assert.equal(meta.json.cols, 132);
      assert.ok(meta.json.bytes_in > 10 && meta.json.bytes_out > 10, meta.text);
      // the shell exits: the stream says so and closes, the session records the code
      stream.send('exit 3\r');
      const exit = await stream.waitForControl('exit');
      assert.equal(exit.code, 3);
      await stream.closed;
      const closed = await eventually('closed', async () => {
        const r = await orch.api('GET', `/terminal/session/${session.session_id}`, { token: op.token });
        return r.json.state === 'closed' && r.json;
      });
      assert.equal(closed.close_reason, 'exit');
      assert.equal(closed.exit_code, 3);

      // the transcript: valid asciicast v2 with what was typed and printed
      assertProblem(await orch.api('GET', `/terminal/session/${session.session_id}/transcript`, { token: viewer }), 403, 'role-required');
      const t = await orch.api('GET', `/terminal/session/${session.session_id}/transcript`, { token: op.token });
      assert.equal(t.status, 200);
      assert.match(String(t.headers['content-type']), /^application\/x-asciicast/);
      assert.match(String(t.headers['content-disposition']), /^attachment; filename=".+\.cast"$/);
      const lines = t.text.trimEnd().split('\n');
      const header = JSON.parse(lines[0]!) as Record<string, unknown>;
      assert.equal(header.version, 2);
      assert.equal(header.width, 80);
      assert.equal(header.height, 24);
      assert.equal(typeof header.timestamp, 'number');
      assert.equal((header.env as Record<string, string>).TERM, 'xterm-256color');
      assert.equal(header.title, `${NODE} — ${op.operatorId}`);
      for (const line of lines.slice(1)) {
        const e = JSON.parse(line) as unknown[];
        assert.ok(Array.isArray(e) && e.length === 3 && typeof e[0] === 'number' && ['o', 'i', 'r'].includes(e[1] as string) && typeof e[2] === 'string', line);
      }
      const cast = parseAsciicast(t.text); // the parser the UI's replay uses
      const output = cast.events.filter((e) => e.code === 'o').map((e) => e.data).join('');
      assert.match(output, /echo \$\(\(6\*7\)\)/);
      assert.match(output, /[\r\n]42\r\n/);
      assert.ok(cast.events.some((e) => e.code === 'r' && e.data === '132x50'));
      assert.ok(!cast.events.some((e) => e.code === 'i'), 'input is not recorded by default');
      const audit = await orch.api('GET', '/audit?action=terminal.transcript', { token: admin });
      assert.ok(audit.json.items.some((e: { target: string }) => e.target === session.session_id));
      const mode = statSync(terminals().transcriptPath(session.session_id)).mode & 0o777;
      assert.equal(mode, 0o600);
    });
  });

  describe('DELETE /api/v1/terminal/session/{session_id}', () => {
    it('needs the operator role', async () => {
      assertProblem(await orch.api('DELETE', `/terminal/session/${randomUUID()}`), 401);
      assertProblem(await orch.api('DELETE', `/terminal/session/${randomUUID()}`, { token: viewer }), 403);
      assertProblem(await orch.api('DELETE', `/terminal/session/${randomUUID()}`, { token: op.token }), 404, 'session-not-found');
    });

    it('closes the session and kills the shell on the agent', async () => {
      const { session, stream } = await attach();
      await prompt(stream);
      const pid = terminals().livePid(session.session_id)!;
      assert.ok(pid > 0 && processAlive(pid), 'the shell runs');
      const res = await orch.api('DELETE', `/terminal/session/${session.session_id}`, { token: op.token });
      assert.equal(res.status, 204);
      const control = await stream.waitForControl('closed');
      assert.equal(control.reason, 'closed');
      await stream.closed;
      await eventually('the shell gone', () => !processAlive(pid), 10_000);
      const meta = await orch.api('GET', `/terminal/session/${session.session_id}`, { token: op.token });
      assert.equal(meta.json.state, 'closed');
      assert.equal(meta.json.close_reason, 'closed');
      assert.equal((await orch.api('DELETE', `/terminal/session/${session.session_id}`, { token: op.token })).status, 204, 'idempotent');
      const audit = await orch.api('GET', '/audit?action=terminal.close', { token: admin });
      assert.ok(audit.json.items.some((e: { target: string; actor: string }) => e.target === session.session_id && e.actor === op.operatorId));
    });
  });

  describe('GET /api/v1/terminal', () => {
    it('lists most recent first, filters, pages', async () => {
      const all = await orch.api('GET', '/terminal?limit=1', { token: viewer });
      assert.equal(all.status, 200);
      assert.equal(all.json.items.length, 1);
      assert.ok(all.json.next_cursor);
      const next = await orch.api('GET', `/terminal?limit=1&cursor=${all.json.next_cursor}`, { token: viewer });
      assert.equal(next.json.items.length, 1);
      assert.ok(next.json.items[0].started_at <= all.json.items[0].started_at);
      assert.notEqual(next.json.items[0].session_id, all.json.items[0].session_id);
      const mine = await orch.api('GET', `/terminal?operator_id=${op.operatorId}&state=closed&node_id=${NODE}`, { token: viewer });
      assert.ok(mine.json.items.length >= 2);
      assert.ok(mine.json.items.every((s: { state: string }) => s.state === 'closed'));
      assertProblem(await orch.api('GET', '/terminal?cursor=garbage'), 401);
      assertProblem(await orch.api('GET', '/terminal?cursor=garbage', { token: viewer }), 400, 'invalid-cursor');
    });
  });

  describe('the stream WebSocket', () => {
    it('refuses a missing, reused, expired or foreign ticket before the upgrade', async () => {
      const a = await openSession();
      const b = await openSession();
      const id = a.json.session_id as string;
      assert.equal(await refusal(connectStream(orch.url, id)), 401, 'no credential');
      assert.equal(await refusal(connectStream(orch.url, id, { ticket: 'x'.repeat(43) })), 401, 'unknown ticket');
      assert.equal(await refusal(connectStream(orch.url, id, { ticket: b.json.ticket })), 401, "another session's ticket");
      assert.equal(await refusal(connectStream(orch.url, b.json.session_id, { ticket: b.json.ticket })), 401, 'a ticket is gone after one try');
      const realNow = terminals().now;
      terminals().now = () => Date.now() + 31_000;
      try {
        assert.equal(await refusal(connectStream(orch.url, id, { ticket: a.json.ticket })), 401, 'expired');
      } finally {
        terminals().now = realNow;
      }
      assert.equal(await refusal(connectStream(orch.url, id, { ticket: a.json.ticket })), 401, 'a ticket is single use');
      // the bearer header works for the session's own operator and for admins, nobody else
      const other = await orch.loginAs('operator');
      assert.equal(await refusal(connectStream(orch.url, id, { token: other.token })), 403);
      assert.equal(await refusal(connectStream(orch.url, id, { token: viewer })), 403);
      const stream = await connectStream(orch.url, id, { token: op.token });
      open.push(stream);
      await prompt(stream);
      assert.equal(await refusal(connectStream(orch.url, id, { token: admin })), 409, 'one stream per session');
      stream.close();
      await eventually('closed when the stream goes', async () => (await orch.api('GET', `/terminal/session/${id}`, { token: op.token })).json.close_reason === 'stream-closed');
      const adminStream = await connectStream(orch.url, b.json.session_id, { token: admin });
      open.push(adminStream);
      await prompt(adminStream);
      adminStream.close();
      await eventually('no session open', async () => (await liveCount()) === 0);
    });

    it('ignores bad frames and keeps relaying', async () => {
      const { stream } = await attach();
      stream.sendControl('{not json');
      stream.sendControl({ type: 'launch-missiles' });
      stream.sendControl({ type: 'resize', cols: -1, rows: 'x' });
      stream.sendControl([1, 2, 3]);
      stream.sendControl('x'.repeat(200_000));
      stream.ws.send(Buffer.alloc(0), { binary: true });
      await prompt(stream);
      stream.close();
      await eventually('no session open', async () => (await liveCount()) === 0);
    });

    it('closes a session nobody attaches to', async () => {
      terminals().options.attachTimeoutMs = 300;
      try {
        const res = await openSession();
        const meta = await eventually('closed', async () => {
          const r = await orch.api('GET', `/terminal/session/${res.json.session_id}`, { token: op.token });
          return r.json.state === 'closed' && r.json;
        });
        assert.equal(meta.close_reason, 'not-attached');
      } finally {
        delete terminals().options.attachTimeoutMs;
      }
    });
  });

  describe('limits', () => {
    it('allows at most 8 sessions per agent', async () => {
      await eventually('no session open', async () => (await liveCount()) === 0);
      const ids: string[] = [];
      for (let i = 0; i < 8; i++) {
        const res = await openSession();
        assert.equal(res.status, 201, res.text);
        ids.push(res.json.session_id);
      }
      assertProblem(await openSession(), 409, 'too-many-sessions');
      for (const id of ids) assert.equal((await orch.api('DELETE', `/terminal/session/${id}`, { token: op.token })).status, 204);
      const res = await openSession();
      assert.equal(res.status, 201, 'room again once closed');
      await orch.api('DELETE', `/terminal/session/${res.json.session_id}`, { token: op.token });
    });

    it('closes an idle session', async () => {
      terminals().options.idleTimeoutS = 1;
      try {
        const { session, stream } = await attach();
        const control = await stream.waitForControl('closed', 5000);
        assert.equal(control.reason, 'idle');
        const meta = await orch.api('GET', `/terminal/session/${session.session_id}`, { token: op.token });
        assert.equal(meta.json.close_reason, 'idle');
        const audit = await orch.api('GET', '/audit?action=terminal.close', { token: admin });
        assert.ok(audit.json.items.some((e: { target: string; actor_type: string }) => e.target === session.session_id && e.actor_type === 'system'));
      } finally {
        terminals().options.idleTimeoutS = 1800;
      }
    });

    it('records typed input only when terminal_record_input is on', async () => {
      terminals().options.recordInput = true;
      try {
        const { session, stream } = await attach();
        stream.send('echo typed-$((1+1))\r');
        await stream.waitFor('typed-2');
        await orch.api('DELETE', `/terminal/session/${session.session_id}`, { token: op.token });
        const cast = parseAsciicast((await orch.api('GET', `/terminal/session/${session.session_id}/transcript`, { token: op.token })).text);
        assert.equal(cast.events.filter((e) => e.code === 'i').map((e) => e.data).join(''), 'echo typed-$((1+1))\r');
      } finally {
        terminals().options.recordInput = false;
      }
    });

    it('stops recording at the transcript cap, with a marker, and keeps relaying', async () => {
      terminals().options.transcriptCapBytes = 4096;
      try {
        const { session, stream } = await attach();
        stream.send('seq 1 3000\r');
        await stream.waitFor('\n3000\r\n');
        await prompt(stream);
        await orch.api('DELETE', `/terminal/session/${session.session_id}`, { token: op.token });
        const meta = await orch.api('GET', `/terminal/session/${session.session_id}`, { token: op.token });
        assert.equal(meta.json.transcript_truncated, true);
        assert.ok(meta.json.transcript_bytes <= 4096 + 200, String(meta.json.transcript_bytes));
        const t = await orch.api('GET', `/terminal/session/${session.session_id}/transcript`, { token: op.token });
        const cast = parseAsciicast(t.text);
        assert.match(cast.events.at(-1)!.data, /\[corral: transcript truncated at 4096 bytes\]/);
        assert.ok(!cast.events.some((e) => e.data.includes('\n3000')), 'nothing recorded past the cap');
      } finally {
        terminals().options.transcriptCapBytes = 50 * 1024 * 1024;
      }
    });

    it('relays 50 MB with bounded memory', async (t) => {
      const { session, stream } = await attach();
      await prompt(stream);
      stream.countOnly();
      const before = process.memoryUsage().rss;
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
      const start = stream.bytes();
      const t0 = Date.now();
      // 37.5 MB of zeros is 50,000,000 base64 characters on one line.
      stream.send('head -c 37500000 /dev/zero | base64 -w 0; echo; echo END$((5*5))\r');
      await stream.waitFor('END25', 60_000);
      clearInterval(sampler);
      const received = stream.bytes() - start;
      const growth = (peak - before) / 1e6;
      t.diagnostic(`50 MB relay: ${(received / 1e6).toFixed(1)} MB in ${Date.now() - t0} ms, RSS peak growth ${growth.toFixed(1)} MB`);
      assert.ok(received >= 50_000_000, `received ${received} bytes`);
      assert.ok(growth < 100, `RSS grew by ${growth.toFixed(1)} MB`);
      const meta = await orch.api('GET', `/terminal/session/${session.session_id}`, { token: op.token });
      assert.ok(meta.json.bytes_out >= 50_000_000);
      stream.close();
    });
  });

  describe('sessions end with what they depend on', () => {
    it('closes the sessions of a removed operator', async () => {
      const gone = await orch.loginAs('operator');
      const { session, stream } = await attach(gone.token);
      await prompt(stream);
      assert.equal((await orch.api('DELETE', `/operators/${gone.operatorId}`, { token: admin })).status, 204);
      const control = await stream.waitForControl('closed');
      assert.equal(control.reason, 'operator-removed');
      const meta = await orch.api('GET', `/terminal/session/${session.session_id}`, { token: op.token });
      assert.equal(meta.json.close_reason, 'operator-removed');
    });

    it('marks sessions a previous run left open as closed at start', () => {
      const id = randomUUID();
      orch.handle.services.db
        .prepare("INSERT INTO terminal_sessions (session_id, node_id, operator_id, cols, rows, state, started_at) VALUES (?, ?, 'x', 80, 24, 'open', ?)")
        .run(id, NODE, new Date().toISOString());
      assert.equal(terminals().start(), 1);
      const row = terminals().get(id);
      assert.equal(row.state, 'closed');
      assert.equal(row.close_reason, 'orchestrator-restart');
    });

    it('closes every session of an agent that goes away', async () => {
      const { session, stream } = await attach();
      await prompt(stream);
      await agent.kill('SIGKILL');
      const control = await stream.waitForControl('closed');
      assert.equal(control.reason, 'agent-disconnected');
      const meta = await orch.api('GET', `/terminal/session/${session.session_id}`, { token: op.token });
      assert.equal(meta.json.close_reason, 'agent-disconnected');
      assertProblem(await openSession(), 409, 'agent-offline');
    });
  });
});
