// Shared steps of tests that need a real orchestrator with real, accepted agents.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Role } from '../../common/auth.js';
import { cleanEnv, startServe, type ServeChild } from './child.js';
import { makeKey, type TestKey } from './keys.js';
import { startAgentProcess, type AgentProcess, type AgentProcessOptions } from './agent-process.js';
import type { DriftRecord, Operation } from '../../common/schemas/state.js';
import { makeApi, type Api, type ApiResult, type TestOrchestrator } from './orchestrator.js';

/** What the fleet helpers need of an orchestrator: an in-process TestOrchestrator or a `corral serve` child. */
export type FleetOrchestrator = Pick<TestOrchestrator, 'url' | 'api'>;

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
export async function startAcceptedAgent(orch: FleetOrchestrator, adminToken: string, nodeId: string, options: AgentProcessOptions = {}): Promise<AgentProcess> {
  const agent = await startAgentProcess({ orchestratorUrl: orch.url, nodeId, ...options });
  await eventually(`${nodeId} enrolled`, async () => (await orch.api('GET', `/agents/${nodeId}`, { token: adminToken })).status === 200);
  // A restarted agent keeps its identity, and with it its acceptance.
  if ((await orch.api('GET', `/agents/${nodeId}`, { token: adminToken })).json.status !== 'accepted') {
    const accepted = await orch.api('POST', `/agents/${nodeId}`, { token: adminToken, body: { status: 'accepted' } });
    assert.equal(accepted.status, 200, accepted.text);
  }
  await eventually(`${nodeId} online`, async () => (await orch.api('GET', `/agents/${nodeId}`, { token: adminToken })).json.online);
  // Attributes arrive just after acceptance; templates may use them.
  await eventually(`${nodeId} attributes`, async () => (await orch.api('GET', `/agents/${nodeId}/attributes`, { token: adminToken })).json.attributes?.hostname);
  return agent;
}

export async function uploadModule(orch: FleetOrchestrator, token: string, yaml: string): Promise<ApiResult> {
  const res = await orch.api('POST', '/modules', { token, body: { content: yaml } });
  assert.ok(res.status === 201 || res.status === 200, res.text);
  return res;
}

const FINISHED = ['succeeded', 'failed', 'partial', 'cancelled', 'skipped'];

/** Waits for an operation to finish and returns it with its results. */
export async function finishedOperation(orch: FleetOrchestrator, token: string, operationId: string, timeoutMs = 30_000): Promise<Operation> {
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
export async function runOn(orch: FleetOrchestrator, token: string, nodeId: string, kind: 'apply' | 'plan', body: Record<string, unknown>): Promise<Operation> {
  const res = await orch.api('POST', `/agents/${nodeId}/${kind}`, { token, body });
  assert.equal(res.status, 202, res.text);
  return finishedOperation(orch, token, res.json.operation_id);
}

export async function finishedDrift(orch: FleetOrchestrator, token: string, driftId: string): Promise<DriftRecord> {
  return eventually(`drift ${driftId} finished`, async () => {
    const res = await orch.api('GET', `/drift/${driftId}`, { token });
    return res.json.status !== 'running' ? (res.json as DriftRecord) : undefined;
  });
}

export interface ServedOrchestrator extends FleetOrchestrator {
  serve: ServeChild;
  dataDir: string;
  adminKey: TestKey;
  /** A token of the first admin (made once per start, then reused). */
  adminToken(): Promise<string>;
  /** Creates an operator with the role through the admin, signs in, returns its token. */
  loginAs(role: Role, operatorId: string): Promise<string>;
  /** Everything the process printed (its JSON log lines included). */
  output(): string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export interface ServedOrchestratorOptions {
  /** Where the admin key file goes and (unless dataDir is given) the data directory. */
  dir: string;
  dataDir?: string;
  /** Reuse the admin of a previous start on the same data directory. */
  adminKey?: TestKey;
  logLevel?: string;
  /** Wraps the API client, e.g. to record every response. */
  wrapApi?: (api: Api) => Api;
}

/**
 * A real `corral serve` child process on loopback (plain HTTP), for tests that read its logs
 * or kill it without a clean shutdown. Discovery broadcasts are off (cleanEnv).
 */
export async function startServedOrchestrator(options: ServedOrchestratorOptions): Promise<ServedOrchestrator> {
  const dataDir = options.dataDir ?? path.join(options.dir, 'data');
  const adminKey = options.adminKey ?? makeKey('admin@corral-served');
  const keyFile = path.join(options.dir, 'admin.pub');
  writeFileSync(keyFile, adminKey.publicLine + '\n');
  const args = ['--http', '--bind', '127.0.0.1', '--port', '0', '--data-dir', dataDir, '--admin-key', keyFile, '--log-level', options.logLevel ?? 'warn'];
  const serve = await startServe(args, cleanEnv());
  const plain = makeApi(serve.url);
  const api = options.wrapApi ? options.wrapApi(plain) : plain;
  const login = async (operatorId: string, key: TestKey): Promise<string> => {
    const c = await api('POST', '/auth/challenge', { body: { operator_id: operatorId } });
    assert.equal(c.status, 200, c.text);
    const v = await api('POST', '/auth/verify', { body: { operator_id: operatorId, nonce: c.json.nonce, signature: key.sign(c.json.message) } });
    assert.equal(v.status, 200, v.text);
    return v.json.token as string;
  };
  let admin: string | undefined;
  const adminToken = async () => (admin ??= await login('admin', adminKey));
  return {
    url: serve.url,
    api,
    serve,
    dataDir,
    adminKey,
    adminToken,
    async loginAs(role, operatorId) {
      const key = makeKey(`${operatorId}@corral-served`);
      const created = await api('POST', '/operators', { token: await adminToken(), body: { operator_id: operatorId, role, public_keys: [key.publicLine] } });
      assert.equal(created.status, 201, created.text);
      return login(operatorId, key);
    },
    output: () => serve.output(),
    kill: (signal) => serve.kill(signal),
  };
}
