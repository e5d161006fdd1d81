// npm run bench:terminal [-- --keystrokes 500 --megabytes 200]
// Keystroke echo round trip through the orchestrator's relay (stream WebSocket ->
// orchestrator -> agent link -> real agent child -> real pty, and back) against a direct
// local node-pty echo in the same run, and output throughput through the relay. The
// orchestrator is a child process (`corral serve` from source through tsx), so its CPU
// and RSS are its own; the agent is the real corral-agent child. Not a timed test.
import { spawn } from 'node:child_process';
import { createPublicKey, generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pty from 'node-pty';
import WebSocket from 'ws';
import { AGENT_LINK_PATH, agentAuthMessage, decodeTerminalFrame, encodeTerminalFrame, PROTOCOL_VERSION, TERMINAL_FRAME } from '../../common/protocol.js';
import { startAgentProcess } from '../helpers/agent-process.js';
import { makeKey } from '../helpers/keys.js';
import { makeApi } from '../helpers/orchestrator.js';
import { connectStream, type StreamClient } from '../helpers/terminal-stream.js';

const { values } = parseArgs({ options: { keystrokes: { type: 'string', default: '500' }, megabytes: { type: 'string', default: '200' } } });
const KEYSTROKES = Number(values.keystrokes);
const BYTES = Number(values.megabytes) * 1_000_000;
const root = path.resolve(import.meta.dirname, '..', '..');
const NODE = 'bench-term';
const SHIM = 'bench-shim';
const SHELL = '/bin/sh';

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

function rssMb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
}

const KEYS = 'abcdefghijklmnopqrstuvwxyz';

/** Types one character at a time and waits for each echo; returns round trips in ms. */
async function echoLoop(write: (s: string) => void, onData: (cb: (chunk: string) => void) => void, n: number): Promise<number[]> {
  let pending: ((chunk: string) => void) | undefined;
  onData((chunk) => pending?.(chunk));
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const key = KEYS[i % KEYS.length]!;
    const t0 = performance.now();
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no echo of ${key} in 5 s`)), 5000);
      pending = (chunk) => {
        if (chunk.includes(key)) {
          clearTimeout(timer);
          pending = undefined;
          resolve();
        }
      };
      write(key);
    });
    out.push(performance.now() - t0);
  }
  return out;
}

function summary(label: string, ms: number[]): { p50: number; p99: number } {
  const sorted = [...ms].sort((a, b) => a - b);
  const p50 = percentile(sorted, 50);
  const p99 = percentile(sorted, 99);
  console.log(`${label.padEnd(28)} p50 ${p50.toFixed(3)} ms   p99 ${p99.toFixed(3)} ms   (n=${ms.length})`);
  return { p50, p99 };
}

async function direct(): Promise<{ echo: number[]; mbps: number }> {
  const p = pty.spawn(SHELL, [], { name: 'xterm-256color', cols: 80, rows: 24, cwd: os.tmpdir(), env: { TERM: 'xterm-256color', PATH: process.env.PATH ?? '/usr/bin:/bin' } });
  let text = '';
  let listener: ((s: string) => void) | undefined;
  p.onData((d) => {
    text = (text + d).slice(-4096);
    listener?.(d);
  });
  const waitText = (marker: string) =>
    new Promise<void>((resolve) => {
      const check = () => (text.includes(marker) ? ((listener = undefined), resolve()) : undefined);
      listener = check;
      check();
    });
  p.write('stty raw -echo; echo READ""Y; exec cat\r');
  await waitText('READY');
  await new Promise((r) => setTimeout(r, 200));
  const echo = await echoLoop((s) => p.write(s), (cb) => (listener = cb), KEYSTROKES);
  p.kill();
  // throughput of a local pty for reference
  const q = pty.spawn(SHELL, [], { name: 'xterm-256color', cols: 80, rows: 24, cwd: os.tmpdir(), env: { TERM: 'xterm-256color', PATH: process.env.PATH ?? '/usr/bin:/bin' } });
  let bytes = 0;
  let tail = '';
  const done = new Promise<void>((resolve) => {
    q.onData((d) => {
      bytes += d.length;
      tail = (tail + d.slice(-64)).slice(-64);
      if (tail.includes('END5')) resolve();
    });
  });
  const t0 = performance.now();
  q.write(`stty raw -echo; head -c ${BYTES} /dev/zero | tr '\\0' x; echo; echo END$((2+3))\r`);
  await done;
  const seconds = (performance.now() - t0) / 1000;
  q.kill();
  return { echo, mbps: bytes / 1e6 / seconds };
}

/**
 * A minimal agent in this process: the real link protocol, node-pty, no output batching and
 * no flow control. Echo through it isolates what the orchestrator's relay itself adds.
 */
function startShimAgent(url: string, nodeId: string): Promise<WebSocket> {
  const { privateKey } = generateKeyPairSync('ed25519');
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  const ws = new WebSocket(url.replace(/^http/, 'ws') + AGENT_LINK_PATH, { perMessageDeflate: false });
  const ptys = new Map<string, pty.IPty>();
  ws.on('message', (data, isBinary) => {
    if (isBinary) {
      const f = decodeTerminalFrame(data as Buffer);
      if (f && f.kind === TERMINAL_FRAME.input) ptys.get(f.sessionId)?.write(Buffer.from(f.payload));
      return;
    }
    const m = JSON.parse(String(data)) as Record<string, unknown>;
    if (m.type === 'hello') {
      ws.send(JSON.stringify({ type: 'auth', node_id: nodeId, public_key: spki.subarray(spki.length - 32).toString('base64'), signature: sign(null, Buffer.from(agentAuthMessage(String(m.nonce), nodeId)), privateKey).toString('base64'), protocol_version: PROTOCOL_VERSION, agent_version: 'shim', hostname: nodeId }));
    } else if (m.type === 'term_open') {
      const id = String(m.session_id);
      const p = pty.spawn(SHELL, [], { name: 'xterm-256color', cols: Number(m.cols), rows: Number(m.rows), cwd: os.tmpdir(), env: { TERM: 'xterm-256color', PATH: process.env.PATH ?? '/usr/bin:/bin' }, encoding: null });
      ptys.set(id, p);
      p.onData((d) => ws.send(encodeTerminalFrame(TERMINAL_FRAME.output, id, d as unknown as Buffer), { binary: true }));
      p.onExit(() => ptys.delete(id));
      ws.send(JSON.stringify({ type: 'term_opened', session_id: id, pid: p.pid, shell: SHELL, user: os.userInfo().username }));
    } else if (m.type === 'term_close') {
      ptys.get(String(m.session_id))?.kill();
    }
  });
  ws.on('close', () => {
    for (const p of ptys.values()) p.kill();
  });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'corral-bench-term-'));
  const admin = makeKey('bench');
  writeFileSync(path.join(dir, 'admin.pub'), admin.publicLine + '\n');
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'orchestrator', 'cli', 'main.ts'), 'serve', '--http', '--bind', '127.0.0.1', '--port', '0', '--data-dir', path.join(dir, 'data'), '--admin-key', path.join(dir, 'admin.pub'), '--log-level', 'warn'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CORRAL_'))),
  });
  let agent: Awaited<ReturnType<typeof startAgentProcess>> | undefined;
  let shim: WebSocket | undefined;
  const streams: StreamClient[] = [];
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /listening on (\S+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.once('exit', () => reject(new Error(`corral serve exited:\n${out}`)));
    });
    const api = makeApi(url);
    const c = await api('POST', '/auth/challenge', { body: { operator_id: 'admin' } });
    const token = String((await api('POST', '/auth/verify', { body: { operator_id: 'admin', nonce: c.json.nonce, signature: admin.sign(c.json.message) } })).json.token);
    agent = await startAgentProcess({ orchestratorUrl: url, nodeId: NODE, metricsIntervalS: 60 });
    shim = await startShimAgent(url, SHIM);
    for (const nodeId of [NODE, SHIM]) {
      for (let i = 0; (await api('GET', `/agents/${nodeId}`, { token })).status !== 200; i++) {
        if (i > 200) throw new Error(`${nodeId} never enrolled`);
        await new Promise((r) => setTimeout(r, 50));
      }
      await api('POST', `/agents/${nodeId}`, { token, body: { status: 'accepted' } });
      for (let i = 0; !(await api('GET', `/agents/${nodeId}`, { token })).json.online; i++) {
        if (i > 200) throw new Error(`${nodeId} never came online`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    console.log('Corral terminal benchmark');
    console.log(`machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`);

    const open = async (nodeId = NODE) => {
      const res = await api('POST', `/terminal/${nodeId}`, { token, body: { cols: 80, rows: 24, shell: SHELL } });
      if (res.status !== 201) throw new Error(`open answered ${res.status}: ${res.text}`);
      const stream = await connectStream(url, res.json.session_id, { ticket: res.json.ticket });
      streams.push(stream);
      return stream;
    };

    // 1. keystroke echo: relay vs direct
    const d = await direct();
    const relayEchoVia = async (nodeId: string) => {
      const stream = await open(nodeId);
      stream.send('stty raw -echo; echo READ""Y; exec cat\r');
      await stream.waitFor('READY');
      await new Promise((r) => setTimeout(r, 200));
      const ms = await echoLoop((s) => stream.send(s), (cb) => stream.ws.on('message', (data, isBinary) => isBinary && cb((data as Buffer).toString('latin1'))), KEYSTROKES);
      stream.close();
      return ms;
    };
    const relayEcho = await relayEchoVia(NODE);
    const shimEcho = await relayEchoVia(SHIM);
    console.log(`\nkeystroke echo (${KEYSTROKES} single characters into cat on a raw pty):`);
    const local = summary('direct local node-pty', d.echo);
    const relay = summary('relay + corral-agent', relayEcho);
    const bare = summary('relay + shim agent', shimEcho);
    const line = (label: string, r: { p50: number; p99: number }) =>
      console.log(`${label.padEnd(28)} adds p50 ${(r.p50 - local.p50).toFixed(3)} ms, p99 ${(r.p99 - local.p99).toFixed(3)} ms; ratio p50 ${(r.p50 / local.p50).toFixed(1)}x, p99 ${(r.p99 / local.p99).toFixed(1)}x`);
    line('relay + corral-agent', relay);
    line('relay + shim agent', bare);

    // 2. throughput
    const big = await open();
    await big.waitFor(/[$#] $/);
    big.countOnly();
    const rssBefore = rssMb(child.pid!);
    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMb(child.pid!))), 100);
    const start = big.bytes();
    const t0 = performance.now();
    big.send(`stty raw -echo; head -c ${BYTES} /dev/zero | tr '\\0' x; echo; echo END$((2+3))\r`);
    await big.waitFor('END5', 600_000);
    const seconds = (performance.now() - t0) / 1000;
    clearInterval(sampler);
    const received = big.bytes() - start;
    console.log(`\noutput throughput (${(BYTES / 1e6).toFixed(0)} MB from head -c):`);
    console.log(`through the relay            ${(received / 1e6 / seconds).toFixed(1)} MB/s (${(received / 1e6).toFixed(1)} MB in ${seconds.toFixed(2)} s)`);
    console.log(`direct local node-pty        ${d.mbps.toFixed(1)} MB/s`);
    console.log(`orchestrator RSS             ${rssBefore.toFixed(0)} MB before, ${rssPeak.toFixed(0)} MB peak during the transfer`);
    big.close();
  } finally {
    for (const s of streams) s.close();
    shim?.close();
    await agent?.dispose();
    child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
