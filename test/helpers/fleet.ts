// Shared steps of tests that need a real orchestrator with real, accepted agents.
import assert from 'node:assert/strict';
import { startAgentProcess, type AgentProcess, type AgentProcessOptions } from './agent-process.js';
import type { DriftRecord, Operation } from '../../common/schemas/state.js';
import type { ApiResult, TestOrchestrator } from './orchestrator.js';

/** Polls until the probe returns something truthy; fails with `what` after the timeout. */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined | false | null> | T | undefined | false | null, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Starts a corral-agent child, accepts it, and waits until it is online. */
export async function startAcceptedAgent(orch: TestOrchestrator, adminToken: string, nodeId: string, options: AgentProcessOptions = {}): Promise<AgentProcess> {
  const agent = await startAgentProcess({ orchestratorUrl: orch.url, nodeId, ...options });
  await eventually(`${nodeId} enrolled`, async () => (await orch.api('GET', `/agents/${nodeId}`, { token: adminToken })).status === 200);
  const accepted = await orch.api('POST', `/agents/${nodeId}`, { token: adminToken, body: { status: 'accepted' } });
  assert.equal(accepted.status, 200, accepted.text);
  await eventually(`${nodeId} online`, async () => (await orch.api('GET', `/agents/${nodeId}`, { token: adminToken })).json.online);
  // Attributes arrive just after acceptance; templates may use them.
  await eventually(`${nodeId} attributes`, async () => (await orch.api('GET', `/agents/${nodeId}/attributes`, { token: adminToken })).json.attributes?.hostname);
  return agent;
}

export async function uploadModule(orch: TestOrchestrator, token: string, yaml: string): Promise<ApiResult> {
  const res = await orch.api('POST', '/modules', { token, body: { content: yaml } });
  assert.ok(res.status === 201 || res.status === 200, res.text);
  return res;
}

const FINISHED = ['succeeded', 'failed', 'partial', 'cancelled', 'skipped'];

/** Waits for an operation to finish and returns it with its results. */
export async function finishedOperation(orch: TestOrchestrator, token: string, operationId: string, timeoutMs = 30_000): Promise<Operation> {
  return eventually(
    `operation ${operationId} finished`,
    async () => {
      const res = await orch.api('GET', `/state/operations/${operationId}`, { token });
      return FINISHED.includes(res.json.status) ? (res.json as Operation) : undefined;
    },
    timeoutMs,
  );
}

/** POST apply/plan to one agent and wait for the result. */
export async function runOn(orch: TestOrchestrator, token: string, nodeId: string, kind: 'apply' | 'plan', body: Record<string, unknown>): Promise<Operation> {
  const res = await orch.api('POST', `/agents/${nodeId}/${kind}`, { token, body });
  assert.equal(res.status, 202, res.text);
  return finishedOperation(orch, token, res.json.operation_id);
}

export async function finishedDrift(orch: TestOrchestrator, token: string, driftId: string): Promise<DriftRecord> {
  return eventually(`drift ${driftId} finished`, async () => {
    const res = await orch.api('GET', `/drift/${driftId}`, { token });
    return res.json.status !== 'running' ? (res.json as DriftRecord) : undefined;
  });
}
