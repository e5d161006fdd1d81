// One apply at a time per agent, and what happens to queued and running operations when the
// agent or the orchestrator goes away. Real orchestrators (in-process, and a `corral serve`
// child killed with SIGKILL), real corral-agent children running real sleeping scripts.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Operation, OperationSummary } from '../../common/schemas/state.js';
import type { AgentProcess } from '../helpers/agent-process.js';
import { eventually, finishedOperation, startAcceptedAgent, startServedOrchestrator, uploadModule, type FleetOrchestrator, type ServedOrchestrator } from '../helpers/fleet.js';
import { startTestOrchestrator, type TestOrchestrator } from '../helpers/orchestrator.js';

/** A module whose one script writes "start <ns>" and "end <ns>" around a sleep. */
function sleeper(name: string, stamps: string, seconds: number, marker: string): string {
  return JSON.stringify({
    name,
    resources: [{ id: 'nap', type: 'script', run: `echo "start $(date +%s%N)" >> ${stamps}; sleep ${seconds} # ${marker}\necho "end $(date +%s%N)" >> ${stamps}` }],
  });
}

/** Kills processes this test's scripts left behind (found by their marker). */
function killLeftovers(marker: string): void {
  const text = execFileSync('ps', ['-e', '-o', 'pid=,args='], { encoding: 'utf8' });
  for (const line of text.split('\n')) {
    const m = /^\s*(\d+)\s+(.*)$/.exec(line);
    if (m && m[2]!.includes(marker) && Number(m[1]) !== process.pid) {
      try {
        process.kill(Number(m[1]), 'SIGKILL');
      } catch {
        // gone already
      }
    }
  }
}

async function post(orch: FleetOrchestrator, token: string, nodeId: string, modules: string[]): Promise<OperationSummary> {
  const res = await orch.api('POST', `/agents/${nodeId}/apply`, { token, body: { modules } });
  assert.equal(res.status, 202, res.text);
  return res.json as OperationSummary;
}

async function getOp(orch: FleetOrchestrator, token: string, id: string): Promise<Operation> {
  const res = await orch.api('GET', `/state/operations/${id}`, { token });
  assert.equal(res.status, 200, res.text);
  return res.json as Operation;
}

describe('one operation at a time per agent', () => {
  let orch: TestOrchestrator;
  let agent: AgentProcess | undefined;
  let op: string;
  let dir: string;
  const marker = `corral-queue-${randomBytes(4).toString('hex')}`;

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'corral-queue-'));
    orch = await startTestOrchestrator({ heartbeatS: 2 });
    op = (await orch.loginAs('operator', 'queue-op')).token;
  });
  afterEach(() => killLeftovers(marker));
  after(async () => {
    await agent?.dispose();
    await orch?.close();
    killLeftovers(marker);
    rmSync(dir, { recursive: true, force: true });
  });

  it('a second apply waits (queued) while the first runs, then runs after it; the runs never overlap', async () => {
    agent = await startAcceptedAgent(orch, await orch.adminToken(), 'queue-1');
    const stamps = path.join(dir, 'stamps');
    await uploadModule(orch, op, sleeper('nap', stamps, 1, marker));
    const first = await post(orch, op, 'queue-1', ['nap']);
    const second = await post(orch, op, 'queue-1', ['nap']);
    assert.equal(second.status, 'queued');
    assert.ok(first.status === 'queued' || first.status === 'running');

    await eventually('the first running', async () => (await getOp(orch, op, first.operation_id)).status === 'running');
    const waiting = await getOp(orch, op, second.operation_id);
    assert.equal(waiting.status, 'queued', 'the second waits while the first runs');
    assert.equal(waiting.started_at, null);
    const queued = await orch.api('GET', `/agents/queue-1/state/operations?status=queued`, { token: op });
    assert.deepEqual(
      queued.json.items.map((o: OperationSummary) => o.operation_id),
      [second.operation_id],
    );

    const a = await finishedOperation(orch, op, first.operation_id);
    const b = await finishedOperation(orch, op, second.operation_id);
    assert.equal(a.status, 'succeeded', JSON.stringify(a));
    assert.equal(b.status, 'succeeded', JSON.stringify(b));
    assert.ok(b.started_at! >= a.finished_at!, `second started ${b.started_at}, first finished ${a.finished_at}`);
    const lines = readFileSync(stamps, 'utf8').trim().split('\n');
    assert.deepEqual(
      lines.map((l) => l.split(' ')[0]),
      ['start', 'end', 'start', 'end'],
      'start, end, start, end: no overlap',
    );
    const t = lines.map((l) => BigInt(l.split(' ')[1]!));
    assert.ok(t[2]! >= t[1]!, 'the second script started after the first ended');
    assert.ok(t[1]! - t[0]! >= 900_000_000n, 'the first slept about a second');
  });

  it('an agent killed mid-run: the running operation fails (agent_gone), the queued one is cancelled', async () => {
    agent ??= await startAcceptedAgent(orch, await orch.adminToken(), 'queue-1');
    const stamps = path.join(dir, 'stamps-killed');
    await uploadModule(orch, op, sleeper('long-nap', stamps, 20, marker));
    const running = await post(orch, op, 'queue-1', ['long-nap']);
    const queued = await post(orch, op, 'queue-1', ['long-nap']);
    await eventually('the script started', () => existsSync(stamps));
    assert.equal((await getOp(orch, op, running.operation_id)).status, 'running');
    assert.equal((await getOp(orch, op, queued.operation_id)).status, 'queued');

    await agent.kill('SIGKILL');
    const gone = await finishedOperation(orch, op, running.operation_id, 10_000);
    const dropped = await finishedOperation(orch, op, queued.operation_id, 10_000);
    assert.equal(gone.status, 'failed', JSON.stringify(gone));
    assert.equal(gone.code, 'agent_gone');
    assert.match(gone.message ?? '', /disconnected/);
    assert.ok(gone.finished_at);
    assert.equal(dropped.status, 'cancelled', JSON.stringify(dropped));
    assert.equal(dropped.started_at, null, 'the queued one never started');
    assert.ok(dropped.code === 'agent_offline', `code ${dropped.code}`);
    await agent.dispose();
    agent = undefined;
  });
});

describe('operations left unfinished by an orchestrator that stops', () => {
  const marker = `corral-restart-${randomBytes(4).toString('hex')}`;
  let dir: string;
  const agents: AgentProcess[] = [];
  let served: ServedOrchestrator | undefined;

  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'corral-restart-'));
  });
  after(async () => {
    for (const a of agents) await a.dispose();
    await served?.kill('SIGKILL');
    killLeftovers(marker);
    rmSync(dir, { recursive: true, force: true });
  });

  it('a crash (SIGKILL): on the next start the running and the queued operation are cancelled, code orchestrator_restarted', async () => {
    const dataDir = path.join(dir, 'crash-data');
    served = await startServedOrchestrator({ dir, dataDir });
    const token = await served.loginAs('operator', 'crash-op');
    agents.push(await startAcceptedAgent(served, await served.adminToken(), 'crash-1'));
    const stamps = path.join(dir, 'stamps-crash');
    await uploadModule(served, token, sleeper('crash-nap', stamps, 20, marker));
    const running = await post(served, token, 'crash-1', ['crash-nap']);
    const queued = await post(served, token, 'crash-1', ['crash-nap']);
    await eventually('the script started', () => existsSync(stamps));
    assert.equal((await getOp(served, token, running.operation_id)).status, 'running');
    assert.equal((await getOp(served, token, queued.operation_id)).status, 'queued');
    const adminKey = served.adminKey;
    await served.kill('SIGKILL');

    served = await startServedOrchestrator({ dir, dataDir, adminKey });
    const admin = await served.adminToken();
    for (const id of [running.operation_id, queued.operation_id]) {
      const o = await getOp(served, admin, id);
      assert.equal(o.status, 'cancelled', JSON.stringify(o));
      assert.equal(o.code, 'orchestrator_restarted');
      assert.match(o.message ?? '', /restarted/);
      assert.ok(o.finished_at);
    }
    assert.equal((await getOp(served, admin, queued.operation_id)).started_at, null);
    const unfinished = await served.api('GET', '/state/operations?status=running', { token: admin });
    assert.deepEqual(unfinished.json.items, []);
    await served.kill('SIGTERM');
    served = undefined;
  });

  it(
    'a clean stop (handle.close) and a start on the same data directory: both end cancelled, nothing is left running or queued',
    async () => {
    const dataDir = path.join(dir, 'close-data');
    const first = await startTestOrchestrator({ dataDir, keepDataDir: true, heartbeatS: 2 });
    let second: TestOrchestrator | undefined;
    try {
      const token = (await first.loginAs('operator', 'close-op')).token;
      agents.push(await startAcceptedAgent(first, await first.adminToken(), 'close-1'));
      const stamps = path.join(dir, 'stamps-close');
      await uploadModule(first, token, sleeper('close-nap', stamps, 20, marker));
      const running = await post(first, token, 'close-1', ['close-nap']);
      const queued = await post(first, token, 'close-1', ['close-nap']);
      await eventually('the script started', () => existsSync(stamps));
      await first.close();

      second = await startTestOrchestrator({ dataDir, admin: first.adminKey, heartbeatS: 2 });
      const admin = await second.adminToken();
      const r = await getOp(second, admin, running.operation_id);
      const q = await getOp(second, admin, queued.operation_id);
      assert.equal(r.status, 'cancelled', JSON.stringify(r));
      assert.equal(q.status, 'cancelled', JSON.stringify(q));
      assert.ok(['orchestrator_restarted', 'stopping'].includes(r.code ?? ''), `running one: code ${r.code}`);
      // Not "agent_offline: the agent is offline": the agent was there, the orchestrator was stopping.
      assert.ok(['orchestrator_restarted', 'stopping'].includes(q.code ?? ''), `the queued one: ${q.code} (${q.message})`);
      assert.equal(q.started_at, null, 'the queued one was never sent');
      // The queued run was not sent to the agent while the orchestrator stopped.
      await new Promise((res) => setTimeout(res, 300));
      assert.equal(readFileSync(stamps, 'utf8').split('\n').filter((l) => l.startsWith('start')).length, 1, 'the agent started one run only');
    } finally {
      await second?.close();
      await first.close();
    }
  });
});
