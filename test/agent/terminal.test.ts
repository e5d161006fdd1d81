// Terminals end to end on the agent side: a real agent, its real link, a real WebSocket hub
// (support/fake-hub.ts) playing the orchestrator, and real shells in real ptys.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { after, afterEach, describe, it } from 'node:test';
import { startAgent, type AgentHandle, type AgentOptions } from '../../agent/index.js';
import { SOCKET_HIGH_BYTES, TerminalManager, type TerminalReply } from '../../agent/terminal/manager.js';
import { decodeTerminalFrame, encodeTerminalFrame, TERMINAL_FRAME, TERMINAL_WINDOW_BYTES, type TermErrorMessage, type TermExitMessage, type TermOpenedMessage } from '../../common/protocol.js';
import { FakeHub } from './support/fake-hub.js';
import { captureLog, LEVEL, type CapturedLog } from './support/log-capture.js';
import { removeDir, tempDir } from './support/temp.js';

const dirs: string[] = [];
let agent: AgentHandle | null = null;
let hub: FakeHub | null = null;

async function setup(agentOptions: Partial<AgentOptions> = {}, status: 'accepted' | 'pending' = 'accepted'): Promise<{ hub: FakeHub; agent: AgentHandle; log: CapturedLog }> {
  hub = await FakeHub.start({ status });
  const log = captureLog();
  const stateDir = tempDir();
  dirs.push(stateDir);
  agent = await startAgent({
    stateDir,
    orchestrator: hub.url,
    nodeId: 'terminal-test',
    discoveryPort: null,
    metricsIntervalS: 60,
    attributesIntervalS: 600,
    logger: log.logger,
    ...agentOptions,
    terminals: { killGraceMs: 500, defaultShell: '/bin/sh', ...agentOptions.terminals },
  });
  const h = hub;
  if (status === 'accepted') await h.waitUntil(() => h.all('attributes').length > 0, 5000, 'accepted');
  else await h.waitUntil(() => agent?.linkState === 'pending' || h.last?.signatureOk === true, 5000, 'welcomed');
  return { hub: h, agent, log };
}

afterEach(async () => {
  await agent?.stop();
  await hub?.close();
  agent = null;
  hub = null;
});
after(() => dirs.forEach(removeDir));

type Reply = TermOpenedMessage | TermErrorMessage;

function reply(h: FakeHub, id: string): Reply | undefined {
  return h.all('term_opened').find((m) => m.session_id === id) ?? h.all('term_error').find((m) => m.session_id === id);
}

async function open(h: FakeHub, fields: { cols?: number; rows?: number; shell?: string; user?: string } = { shell: '/bin/sh' }): Promise<{ id: string; reply: Reply }> {
  const id = randomUUID();
  h.send({ type: 'term_open', session_id: id, cols: 80, rows: 24, ...fields });
  await h.waitUntil(() => reply(h, id) !== undefined, 5000, `a reply to term_open ${id}`);
  return { id, reply: reply(h, id)! };
}

async function opened(h: FakeHub, fields?: Parameters<typeof open>[1]): Promise<TermOpenedMessage> {
  const { reply } = await open(h, fields);
  assert.equal(reply.type, 'term_opened', `opened: ${JSON.stringify(reply)}`);
  return reply as TermOpenedMessage;
}

async function refused(h: FakeHub, fields: Parameters<typeof open>[1]): Promise<string> {
  const { reply } = await open(h, fields);
  assert.equal(reply.type, 'term_error', `refused: ${JSON.stringify(reply)}`);
  return (reply as TermErrorMessage).message;
}

function waitOutput(h: FakeHub, id: string, pattern: RegExp, timeoutMs = 5000): Promise<void> {
  return h.waitUntil(() => pattern.test(h.output(id)), timeoutMs, () => `output matching ${pattern} (got ${JSON.stringify(h.output(id).slice(-300))})`);
}

async function exitOf(h: FakeHub, id: string, timeoutMs = 5000): Promise<TermExitMessage> {
  await h.waitUntil(() => h.all('term_exit').some((m) => m.session_id === id), timeoutMs, `term_exit for ${id}`);
  return h.all('term_exit').find((m) => m.session_id === id)!;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    assert.equal((err as NodeJS.ErrnoException).code, 'ESRCH');
    return false;
  }
}

async function until(predicate: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > end) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('agent terminals', () => {
  it('opens the login shell in the home directory with a clean environment, and runs input', async () => {
    process.env.CORRAL_AGENT_TEST_SECRET = 'sekrit';
    try {
      const { hub, agent } = await setup();
      // No shell asked for: the default one (the agent user's login shell; here /bin/sh, as
      // this machine's own login profile is none of the test's business).
      const m = await opened(hub, {});
      const me = os.userInfo();
      assert.equal(m.user, me.username);
      assert.equal(m.shell, '/bin/sh');
      assert.ok(m.pid > 0 && alive(m.pid));
      assert.equal(agent.terminals, 1);
      hub.sendInput(m.session_id, 'echo $((6*7))\r');
      await waitOutput(hub, m.session_id, /\b42\r\n/);
      hub.sendInput(m.session_id, 'echo "T=$TERM C=$COLORTERM S=${CORRAL_AGENT_TEST_SECRET:-none} U=$USER L=$LOGNAME D=$(pwd)"\r');
      await waitOutput(hub, m.session_id, new RegExp(`T=xterm-256color C=truecolor S=none U=${me.username} L=${me.username} D=${me.homedir}\\r\\n`));
      hub.send({ type: 'term_ack', session_id: m.session_id, bytes: hub.outputBytes(m.session_id) });
    } finally {
      delete process.env.CORRAL_AGENT_TEST_SECRET;
    }
  });

  it('resizes the pty', async () => {
    const { hub } = await setup();
    const m = await opened(hub);
    hub.sendInput(m.session_id, 'stty size\r');
    await waitOutput(hub, m.session_id, /\b24 80\r\n/);
    hub.send({ type: 'term_resize', session_id: m.session_id, cols: 132, rows: 43 });
    hub.sendInput(m.session_id, 'stty size\r');
    await waitOutput(hub, m.session_id, /\b43 132\r\n/);
  });

  it('reports the exit code and forgets the session', async () => {
    const { hub, agent } = await setup();
    const m = await opened(hub);
    hub.sendInput(m.session_id, 'echo bye; exit 3\r');
    const exit = await exitOf(hub, m.session_id);
    assert.deepEqual(exit, { type: 'term_exit', session_id: m.session_id, exit_code: 3, signal: null });
    assert.match(hub.output(m.session_id), /bye\r\n/, 'output before the exit is not lost');
    assert.equal(agent.terminals, 0);
    hub.sendInput(m.session_id, 'echo ignored\r'); // unknown session now: ignored
    await opened(hub);
  });

  it('term_close kills the shell, and SIGKILLs one that ignores SIGHUP', async () => {
    const { hub } = await setup();
    const a = await opened(hub);
    hub.send({ type: 'term_close', session_id: a.session_id });
    const exitA = await exitOf(hub, a.session_id);
    assert.equal(exitA.exit_code, null);
    assert.equal(exitA.signal, 1, 'SIGHUP');
    assert.equal(alive(a.pid), false);

    const b = await opened(hub);
    hub.sendInput(b.session_id, "trap '' HUP; echo \"trap\"ped\r");
    await waitOutput(hub, b.session_id, /trapped\r\n/); // the input line echoes as "trap"ped
    hub.send({ type: 'term_close', session_id: b.session_id });
    const exitB = await exitOf(hub, b.session_id, 3000);
    assert.equal(exitB.signal, 9, 'SIGKILL after the grace period');
    assert.equal(alive(b.pid), false);
  });

  it('stops reading the pty while the window is unacknowledged, and goes on after acks', async () => {
    const { hub } = await setup();
    const m = await opened(hub);
    hub.sendInput(m.session_id, 'yes\r');
    await hub.waitUntil(() => hub.outputBytes(m.session_id) >= TERMINAL_WINDOW_BYTES, 5000, 'a window of output');
    await sleep(200);
    const held = hub.outputBytes(m.session_id);
    await sleep(300);
    assert.equal(hub.outputBytes(m.session_id), held, 'no more output without acks');
    assert.ok(held <= TERMINAL_WINDOW_BYTES + 256 * 1024, `bounded: ${held} bytes`);
    const frames = hub.last!.frames.filter((f) => f.sessionId === m.session_id);
    assert.ok(frames.length < held / 1024, `batched: ${frames.length} frames for ${held} bytes`);
    assert.ok(frames.every((f) => f.kind === TERMINAL_FRAME.output && f.payload.length <= 64 * 1024));

    hub.send({ type: 'term_ack', session_id: m.session_id, bytes: held });
    await hub.waitUntil(() => hub.outputBytes(m.session_id) > held + 512 * 1024, 5000, 'output after the ack');
    hub.send({ type: 'term_close', session_id: m.session_id });
    await exitOf(hub, m.session_id);
  });

  it('never cuts a UTF-8 character between frames', async () => {
    const { hub } = await setup();
    const m = await opened(hub);
    hub.sendInput(m.session_id, 'yes "€uro ✓" | head -n 40000; echo "do"ne\r');
    await waitOutput(hub, m.session_id, /\ndone\r\n/);
    const frames = hub.last!.frames.filter((f) => f.sessionId === m.session_id);
    assert.ok(frames.length > 3, `${frames.length} frames`);
    for (const f of frames) assert.ok(!f.payload.toString('utf8').includes('\uFFFD'), 'each frame decodes on its own');
  });

  it('refuses a ninth terminal', async () => {
    const { hub, agent } = await setup();
    for (let i = 0; i < 8; i++) await opened(hub);
    assert.equal(agent.terminals, 8);
    assert.match(await refused(hub, { shell: '/bin/sh' }), /limit is 8/);
  });

  it('refuses bad shells, unknown users and bad sizes, naming why', async () => {
    const { hub } = await setup();
    assert.match(await refused(hub, { shell: 'bash' }), /not an absolute path/);
    assert.match(await refused(hub, { shell: '/usr/bin/env' }), /not listed in \/etc\/shells/);
    assert.match(await refused(hub, { shell: '/bin/../bin/sh' }), /not a normalised path/);
    assert.match(await refused(hub, { shell: '/bin/sh', user: 'no-such-user-here' }), /no user "no-such-user-here"/);
    assert.match(await refused(hub, { shell: '/bin/sh', cols: 0 }), /out of range/);
    assert.match(await refused(hub, { shell: '/bin/sh', rows: 501 }), /out of range/);
  });

  it('runs as another user only when the agent is root', { skip: process.getuid?.() !== 0 && 'needs root' }, async () => {
    const { hub } = await setup();
    const m = await opened(hub, { shell: '/bin/sh', user: 'nobody' });
    assert.equal(m.user, 'nobody');
    hub.sendInput(m.session_id, 'echo "ID=$(id -u):$(id -g):$(id -G) U=$USER H=$HOME"\r');
    // Only the user's own groups: not root's supplementary groups.
    await waitOutput(hub, m.session_id, /ID=65534:65534:65534 U=nobody H=\/nonexistent\r\n/);
    assert.match(await refused(hub, { user: 'nobody' }), /nologin is not a usable shell/);
    await agent!.stop();
    await hub.close();

    const other = await setup({ terminals: { isRoot: false } });
    assert.match(await refused(other.hub, { shell: '/bin/sh', user: 'nobody' }), /not root/);
  });

  it('logs and ignores garbage terminal traffic without dropping the link', async () => {
    const { hub, log } = await setup();
    const m = await opened(hub);
    const stranger = randomUUID();
    const garbage = [
      { type: 'term_open', session_id: 'not-a-uuid', cols: 80, rows: 24 },
      { type: 'term_open', session_id: randomUUID(), cols: '80', rows: 24 },
      { type: 'term_open', session_id: randomUUID(), cols: 80, rows: 24, shell: 7 },
      { type: 'term_resize', session_id: m.session_id, cols: 80.5, rows: 24 },
      { type: 'term_resize', session_id: m.session_id, cols: 5000, rows: 24 },
      { type: 'term_resize', session_id: stranger, cols: 80, rows: 24 },
      { type: 'term_ack', session_id: m.session_id, bytes: -1 },
      { type: 'term_ack', session_id: stranger, bytes: 10 },
      { type: 'term_close', session_id: stranger },
      { type: 'term_close' },
    ];
    for (const g of garbage) hub.send(g);
    hub.sendInput(stranger, 'echo nobody\r');
    hub.sendBinary(encodeTerminalFrame(TERMINAL_FRAME.output, m.session_id, Buffer.from('echo wrong way\r')));
    hub.sendBinary(Buffer.from([1, 2, 3]));
    hub.sendBinary(Buffer.concat([Buffer.from([9]), Buffer.alloc(20)]));
    hub.sendInput(m.session_id, 'stty size; echo $((6*7))\r');
    await waitOutput(hub, m.session_id, /\b24 80\r\n42\r\n/);
    assert.equal(hub.connections.length, 1, 'still the same link');
    assert.equal(hub.all('term_error').length, 0);
    assert.ok(!/wrong way/.test(hub.output(m.session_id)), 'an output frame from the orchestrator is not input');
    const warnings = log.lines.filter((l) => l.level === LEVEL.warn && /ignoring/.test(l.msg ?? ''));
    assert.ok(warnings.length >= garbage.length + 4, `${warnings.length} warnings`);
  });

  it('kills every shell when the link drops', async () => {
    const { hub, agent } = await setup();
    const a = await opened(hub);
    const b = await opened(hub);
    hub.sendInput(b.session_id, "trap '' HUP; echo \"trap\"ped\r");
    await waitOutput(hub, b.session_id, /trapped\r\n/); // the input line echoes as "trap"ped
    hub.last!.ws.terminate();
    await until(() => !alive(a.pid) && !alive(b.pid), 3000, 'both shells gone');
    assert.equal(agent.terminals, 0);
    await hub.waitUntil(() => hub.connections.length === 2 && hub.last!.signatureOk === true, 5000, 'reconnected');
    assert.equal(hub.all('term_exit').length, 0, 'nothing reported for sessions of a dropped link');
  });

  it('takes no terminal traffic while pending, and closes terminals when rejected', async () => {
    const pending = await setup({}, 'pending');
    const id = randomUUID();
    pending.hub.send({ type: 'term_open', session_id: id, cols: 80, rows: 24, shell: '/bin/sh' });
    await pending.log.waitFor((l) => /ignoring a terminal message/.test(l.msg ?? ''));
    assert.equal(pending.agent.terminals, 0);
    pending.hub.setStatus('accepted');
    await pending.hub.waitUntil(() => pending.hub.all('attributes').length > 0, 5000, 'accepted');
    const m = await opened(pending.hub);
    pending.hub.setStatus('rejected');
    await until(() => !alive(m.pid), 3000, 'the shell gone');
    assert.equal(pending.agent.terminals, 0);
  });
});

describe('terminal manager', () => {
  it('holds every pty while the WebSocket send buffer is full, and reads again once it drains', async () => {
    const log = captureLog('info');
    const replies: TerminalReply[] = [];
    let output = 0;
    let buffered = 0;
    const manager = new TerminalManager(
      {
        canSend: true,
        get bufferedAmount() {
          return buffered;
        },
        sendFrame(frame) {
          output += decodeTerminalFrame(frame)!.payload.length;
          return true;
        },
        sendReply: (m) => replies.push(m),
      },
      log.logger,
      { killGraceMs: 300 },
    );
    const id = randomUUID();
    manager.handle({ type: 'term_open', session_id: id, cols: 80, rows: 24, shell: '/bin/sh' });
    assert.equal(replies[0]?.type, 'term_opened');
    buffered = SOCKET_HIGH_BYTES + 1; // as if the orchestrator's TCP window were shut
    manager.input(TERMINAL_FRAME.input, id, Buffer.from('yes\r'));
    await until(() => output > 0 && manager.session(id)!.isPaused, 3000, 'paused on the socket');
    await sleep(100);
    const held = output;
    await sleep(200);
    assert.equal(output, held, 'nothing more while the socket is full');
    assert.ok(held < 512 * 1024, `${held} bytes`);
    buffered = 0;
    await until(() => output > held + 64 * 1024, 3000, 'output after the drain');
    await manager.closeAll('test over');
    assert.equal(manager.size, 0);
  });
});
