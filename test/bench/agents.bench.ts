// npm run bench:agents [-- --agents 1000 --duration 30 --interval 10]
// N simulated agents speak the real link protocol from this one process against a
// real orchestrator (the built `corral serve`, a child process, so its CPU and RSS
// are its own). Prints the connect-storm time, orchestrator CPU and RSS at steady
// state, and GET /agents latency while the agents run. Bounded: it stops by itself.
import { execFileSync, spawn } from 'node:child_process';
import { createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { formatPublicKey } from '../../common/openssh.js';
import { AGENT_LINK_PATH, agentAuthMessage, type MetricsSample, PROTOCOL_VERSION } from '../../common/protocol.js';

const { values } = parseArgs({
  options: { agents: { type: 'string', default: '1000' }, duration: { type: 'string', default: '30' }, interval: { type: 'string', default: '10' } },
});
const N = Number(values.agents);
const DURATION_S = Number(values.duration);
const INTERVAL_S = Number(values.interval);
const root = path.resolve(import.meta.dirname, '..', '..');

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

function identity(): { privateKey: KeyObject; raw: Buffer } {
  const { privateKey } = generateKeyPairSync('ed25519');
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  return { privateKey, raw: spki.subarray(spki.length - 32) };
}

function sample(): MetricsSample {
  return {
    ts: Date.now(), cpu_percent: Math.random() * 100, load1: 0.5, load5: 0.4, load15: 0.3,
    mem_used: 2e9, mem_total: 8e9, swap_used: 0, swap_total: 1e9,
    disks: [{ mount: '/', used: 2e10, total: 1e11 }], net_rx_bps: 1000, net_tx_bps: 500, processes: 150, uptime_s: 1000,
  };
}

function procStats(pid: number): { cpuTicks: number; rssMb: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const cpuTicks = Number(fields[11]) + Number(fields[12]);
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  return { cpuTicks, rssMb: rssKb / 1024 };
}

async function main(): Promise<void> {
  // Only the orchestrator is measured, so only it is built (the built code, not tsx, is what users run).
  execFileSync('npm', ['run', 'build:node', '--silent'], { cwd: root, stdio: 'inherit' });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'corral-bench-'));
  const admin = identity();
  writeFileSync(path.join(dir, 'admin.pub'), formatPublicKey(admin.raw, 'bench') + '\n');
  const child = spawn(process.execPath, [path.join(root, 'bin', 'corral.js'), 'serve', '--http', '--bind', '127.0.0.1', '--port', '0', '--data-dir', path.join(dir, 'data'), '--admin-key', path.join(dir, 'admin.pub'), '--log-level', 'warn'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const stop = () => {
    child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  };
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
    const api = async (method: string, p: string, body?: unknown, token?: string) => {
      const res = await fetch(url + '/api/v1' + p, {
        method,
        headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: res.status, json: (await res.json().catch(() => undefined)) as Record<string, unknown> };
    };
    const c = await api('POST', '/auth/challenge', { operator_id: 'admin' });
    const v = await api('POST', '/auth/verify', { operator_id: 'admin', nonce: c.json.nonce, signature: sign(null, Buffer.from(String(c.json.message)), admin.privateKey).toString('base64') });
    const token = String(v.json.token);

    console.log(`Corral agent benchmark: ${N} simulated agents, metrics every ${INTERVAL_S} s, ${DURATION_S} s steady state`);
    console.log(`machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`);
    const ids = Array.from({ length: N }, () => identity());
    const sockets: WebSocket[] = [];
    const timers: NodeJS.Timeout[] = [];
    const wsUrl = url.replace(/^http/, 'ws') + AGENT_LINK_PATH;
    let welcomed = 0;
    const stormStart = performance.now();
    const allWelcomed = new Promise<void>((resolve) => {
      ids.forEach((id, i) => {
        const nodeId = `bench-${String(i).padStart(5, '0')}`;
        const ws = new WebSocket(wsUrl);
        sockets.push(ws);
        ws.on('error', () => undefined);
        ws.on('message', (data) => {
          const m = JSON.parse(String(data)) as { type: string; nonce?: string; status?: string; heartbeat_s?: number };
          if (m.type === 'hello') {
            ws.send(JSON.stringify({ type: 'auth', node_id: nodeId, public_key: id.raw.toString('base64'), signature: sign(null, Buffer.from(agentAuthMessage(m.nonce!, nodeId)), id.privateKey).toString('base64'), protocol_version: PROTOCOL_VERSION, agent_version: 'bench', hostname: nodeId }));
          } else if (m.type === 'welcome') {
            if (++welcomed === N) resolve();
            timers.push(setInterval(() => ws.readyState === ws.OPEN && ws.send(JSON.stringify({ type: 'ping', ts: Date.now() })), (m.heartbeat_s ?? 10) * 1000));
          } else if (m.type === 'status' && m.status === 'accepted') {
            ws.send(JSON.stringify({ type: 'attributes', attributes: { os: 'linux', hostname: nodeId, kernel: '6.1', arch: 'x64', cpu_count: 2, memory_bytes: 8e9, ips: ['10.0.0.1'] } }));
            // Spread the agents over the interval, as real ones started at different times are.
            setTimeout(() => timers.push(setInterval(() => ws.readyState === ws.OPEN && ws.send(JSON.stringify({ type: 'metrics', samples: [sample()] })), INTERVAL_S * 1000)), Math.random() * INTERVAL_S * 1000);
          }
        });
      });
    });
    await Promise.race([allWelcomed, new Promise((_, reject) => setTimeout(() => reject(new Error(`only ${welcomed}/${N} agents connected in 120 s`)), 120_000))]);
    const stormMs = performance.now() - stormStart;
    console.log(`connect storm: ${N} agents connected and authenticated in ${(stormMs / 1000).toFixed(2)} s`);

    const acceptStart = performance.now();
    for (let i = 0; i < N; i += 20) {
      await Promise.all(ids.slice(i, i + 20).map((_, j) => api('POST', `/agents/bench-${String(i + j).padStart(5, '0')}`, { status: 'accepted' }, token)));
    }
    console.log(`accepting all ${N} through the API: ${((performance.now() - acceptStart) / 1000).toFixed(2)} s`);

    await new Promise((r) => setTimeout(r, (INTERVAL_S + 5) * 1000)); // every agent has sent metrics at least once
    const ticks = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());
    const before = procStats(child.pid!);
    const t0 = performance.now();
    const latencies: number[] = [];
    const rss: number[] = [];
    const deadline = Date.now() + DURATION_S * 1000;
    while (Date.now() < deadline) {
      const s = performance.now();
      const res = await api('GET', '/agents?limit=100', undefined, token);
      latencies.push(performance.now() - s);
      if (res.status !== 200) throw new Error(`GET /agents answered ${res.status}`);
      rss.push(procStats(child.pid!).rssMb);
      await new Promise((r) => setTimeout(r, 200));
    }
    const after = procStats(child.pid!);
    const cpuPercent = ((after.cpuTicks - before.cpuTicks) / ticks / ((performance.now() - t0) / 1000)) * 100;
    latencies.sort((a, b) => a - b);
    const full = performance.now();
    await api('GET', '/agents?limit=1000', undefined, token);
    const fullMs = performance.now() - full;
    const status = await api('GET', '/status');
    console.log(`steady state over ${DURATION_S} s: orchestrator CPU ${cpuPercent.toFixed(1)}% of one core, RSS max ${Math.max(...rss).toFixed(0)} MB (end ${after.rssMb.toFixed(0)} MB)`);
    console.log(`GET /agents?limit=100 while they run: p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms (${latencies.length} requests); limit=1000 once: ${fullMs.toFixed(1)} ms`);
    console.log(`orchestrator reports ${JSON.stringify((status.json.checks as Record<string, unknown>) ?? {})}`);
    for (const t of timers) clearInterval(t);
    for (const ws of sockets) ws.terminate();
  } finally {
    stop();
  }
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    console.error(`bench:agents failed: ${err.message}`);
    process.exit(1);
  },
);
