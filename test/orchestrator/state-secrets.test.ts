// Secret values end to end: a real `corral serve` (trace logs captured), a real corral-agent
// child (trace logs captured), a module that writes a secret into a file and echoes it in a
// script. The value must reach the managed file and nowhere else: not the database (nor its
// WAL), not a log line, not an API answer, not captured output, diffs, drift or audit.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { BelievedState, DriftRecord, Operation, OperationOutput } from '../../common/schemas/state.js';
import type { AgentProcess } from '../helpers/agent-process.js';
import { finishedDrift, runOn, startAcceptedAgent, startServedOrchestrator, uploadModule, type ServedOrchestrator } from '../helpers/fleet.js';
import type { Api } from '../helpers/orchestrator.js';

const NODE = 'secret-1';
const SECRET = 'APP_TOKEN';
const MASK = '********';

/** Every regular file under dir (recursively) with its bytes. */
function filesUnder(dir: string): { file: string; bytes: Buffer }[] {
  const out: { file: string; bytes: Buffer }[] = [];
  if (!existsSync(dir)) return out;
  const walk = (p: string): void => {
    const st = lstatSync(p);
    if (st.isDirectory()) for (const e of readdirSync(p)) walk(path.join(p, e));
    else if (st.isFile()) out.push({ file: p, bytes: readFileSync(p) });
  };
  walk(dir);
  return out;
}

/** A served orchestrator and an agent whose every answer, log line and file is searched. */
class SecretFleet {
  /** Every API answer (status line, headers and body) made during the test. */
  readonly responses: string[] = [];
  readonly operations: Operation[] = [];
  dir = '';
  target = '';
  orch!: ServedOrchestrator;
  agent!: AgentProcess;
  op = '';
  moduleName = '';

  async start(nodeId: string): Promise<void> {
    this.dir = mkdtempSync(path.join(os.tmpdir(), 'corral-secrets-e2e-'));
    this.target = path.join(this.dir, 'out', 'app.conf');
    const record =
      (api: Api): Api =>
      async (method, apiPath, options) => {
        const res = await api(method, apiPath, options);
        this.responses.push(`${method} ${apiPath} ${res.status}\n${JSON.stringify(res.headers)}\n${res.text}`);
        return res;
      };
    this.orch = await startServedOrchestrator({ dir: this.dir, logLevel: 'trace', wrapApi: record });
    this.op = await this.orch.loginAs('operator', 'secret-op');
    this.agent = await startAcceptedAgent(this.orch, await this.orch.adminToken(), nodeId, { extraArgs: ['--log-level', 'trace'] });
  }

  async stop(): Promise<void> {
    await this.agent?.dispose();
    await this.orch?.kill('SIGKILL');
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }

  /** Where the value may not be but is: API answers, both logs, every file but the managed one. */
  leaks(value: string): string[] {
    const found: string[] = [];
    for (const r of this.responses) if (r.includes(value)) found.push(`API answer: ${r.slice(0, 200)} ... ${r.slice(Math.max(0, r.indexOf(value) - 150), r.indexOf(value) + value.length + 20)}`);
    if (this.orch.output().includes(value)) found.push('orchestrator log');
    if (this.agent.output().includes(value)) found.push('agent log');
    const needle = Buffer.from(value, 'utf8');
    for (const f of [...filesUnder(this.orch.dataDir), ...filesUnder(this.agent.stateDir)]) if (f.bytes.includes(needle)) found.push(`file ${f.file}`);
    for (const f of filesUnder(this.dir)) if (f.file !== this.target && f.bytes.includes(needle)) found.push(`file ${f.file}`);
    return found;
  }

  moduleText(): string {
    return `name: secret-mod
description: writes a secret into a file and echoes it
resources:
  - id: out
    type: directory
    path: ${this.dir}/out
    mode: "0700"
  - id: conf
    type: file
    path: ${this.target}
    mode: "0600"
    template: "password={{ secrets.${SECRET} }}\\n"
    requires: [out]
  - id: echo
    type: script
    run: echo the value is {{ secrets.${SECRET} }}
    requires: [conf]
  - id: echo-err
    type: script
    run: "echo to stderr {{ secrets.${SECRET} }} >&2"
    requires: [conf]
`;
  }

  /** Stores the secret and uploads the module. */
  async prepare(value: string): Promise<void> {
    const created = await this.orch.api('POST', '/secrets', { token: this.op, body: { name: SECRET, value, description: 'the app token' } });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.version, 1);
    const up = await uploadModule(this.orch, this.op, this.moduleText());
    this.moduleName = up.json.name;
    assert.deepEqual(up.json.secrets, [SECRET]);
  }

  async run(kind: 'apply' | 'plan'): Promise<Operation> {
    const o = await runOn(this.orch, this.op, NODE, kind, { modules: [this.moduleName] });
    this.operations.push(o);
    return o;
  }

  async output(operationId: string): Promise<OperationOutput> {
    const res = await this.orch.api('GET', `/agents/${NODE}/state/operations/${operationId}/output`, { token: this.op });
    assert.equal(res.status, 200, res.text);
    return res.json as OperationOutput;
  }

  async drift(): Promise<DriftRecord> {
    const started = await this.orch.api('POST', `/agents/${NODE}/drift`, { token: this.op });
    assert.equal(started.status, 202, started.text);
    return finishedDrift(this.orch, this.op, started.json.drift_id);
  }
}

describe('a secret value reaches only the file that uses it', () => {
  const value = `s3cr3t-${randomUUID()}`;
  const f = new SecretFleet();
  before(() => f.start(NODE));
  after(() => f.stop());

  it('stores the secret (metadata only in the answer) and a module that uses it', async () => {
    await f.prepare(value);
    assert.deepEqual(f.leaks(value), []);
  });

  it('a plan shows ******** in the diffs, never the value', async () => {
    const plan = await f.run('plan');
    assert.equal(plan.status, 'succeeded', JSON.stringify(plan));
    const conf = plan.results.find((r) => r.resource_id === 'conf')!;
    assert.equal(conf.status, 'would_change');
    assert.match(conf.diff?.content ?? '', /^\+password=\*{8}$/m);
    const echo = plan.results.find((r) => r.resource_id === 'echo')!;
    assert.equal(echo.status, 'would_change');
    assert.deepEqual(echo.diff?.properties.run, { before: null, after: `echo the value is ${MASK}` });
    assert.equal(existsSync(f.target), false, 'the plan wrote nothing');
    assert.deepEqual(f.leaks(value), []);
  });

  it('an apply writes the value into the file only; output, results and believed state are masked', async () => {
    const apply = await f.run('apply');
    assert.equal(apply.status, 'succeeded', JSON.stringify(apply));
    assert.equal(readFileSync(f.target, 'utf8'), `password=${value}\n`, 'the managed file has the real value');
    assert.equal(lstatSync(f.target).mode & 0o777, 0o600);
    assert.ok(apply.results.every((r) => r.status === 'changed'));

    const out = await f.output(apply.operation_id);
    assert.deepEqual(
      out.resources.map((r) => [r.resource_id, r.stdout, r.stderr, r.exit_code]),
      [
        ['echo', `the value is ${MASK}\n`, '', 0],
        ['echo-err', '', `to stderr ${MASK}\n`, 0],
      ],
    );

    const state = (await f.orch.api('GET', `/agents/${NODE}/state`, { token: f.op })).json as BelievedState;
    assert.equal(state.baseline_operation_id, apply.operation_id);
    assert.equal(state.resources.find((r) => r.resource_id === 'conf')!.desired.template, `password=${MASK}\n`);
    assert.equal(state.resources.find((r) => r.resource_id === 'echo')!.desired.run, `echo the value is ${MASK}`);
    assert.ok(JSON.stringify(state.resources.find((r) => r.resource_id === 'conf')!.observed).includes(MASK), 'the observed content is masked too');
    assert.ok(existsSync(path.join(f.orch.dataDir, 'corral.db-wal')), 'the WAL is there to be searched');
    assert.deepEqual(f.leaks(value), []);
  });

  it('a second apply: the file is unchanged, the scripts run again, still masked', async () => {
    const again = await f.run('apply');
    assert.deepEqual(
      again.results.map((r) => [r.resource_id, r.status]),
      [['out', 'unchanged'], ['conf', 'unchanged'], ['echo', 'changed'], ['echo-err', 'changed']],
    );
    assert.equal((await f.output(again.operation_id)).resources[0]?.stdout, `the value is ${MASK}\n`);
    assert.deepEqual(f.leaks(value), []);
  });

  it('a drift check of a defaced file shows the expected content masked; the corrective apply too', async () => {
    writeFileSync(f.target, 'password=changed-by-hand\n');
    const drift = await f.drift();
    assert.equal(drift.status, 'done', JSON.stringify(drift));
    assert.equal(drift.drifted, true);
    const item = drift.items.find((i) => i.resource_id === 'conf')!;
    assert.equal(item.status, 'drifted');
    // The machine side of a resource that uses secrets is hidden: it may hold an older value.
    assert.match(item.diff?.content ?? '', /^-\*{8}$/m);
    assert.doesNotMatch(item.diff?.content ?? '', /changed-by-hand/);
    assert.match(item.diff?.content ?? '', /^\+password=\*{8}$/m);
    // Read back as the list and the latest, so those answers are searched too.
    assert.equal((await f.orch.api('GET', `/agents/${NODE}/drift`, { token: f.op })).status, 200);
    assert.equal((await f.orch.api('GET', `/agents/${NODE}/drift/latest`, { token: f.op })).status, 200);

    const fix = await f.run('apply');
    const conf = fix.results.find((r) => r.resource_id === 'conf')!;
    assert.equal(conf.status, 'changed');
    assert.equal(conf.change_kind, 'corrective');
    assert.match(conf.diff?.content ?? '', /^\+password=\*{8}$/m);
    assert.equal(readFileSync(f.target, 'utf8'), `password=${value}\n`);
    assert.deepEqual(f.leaks(value), []);
  });

  it('the audit log, the operation list and every operation read back do not hold it', async () => {
    const audit = await f.orch.api('GET', '/audit?limit=1000', { token: await f.orch.adminToken() });
    assert.equal(audit.status, 200, audit.text);
    const actions = (audit.json.items as { action: string }[]).map((e) => e.action);
    for (const a of ['secret.create', 'module.upload', 'state.apply', 'state.plan', 'drift.check']) assert.ok(actions.includes(a), `audited ${a}: ${actions.join(', ')}`);
    for (const o of f.operations) {
      assert.equal((await f.orch.api('GET', `/state/operations/${o.operation_id}`, { token: f.op })).status, 200);
      assert.equal((await f.orch.api('GET', `/agents/${NODE}/state/operations/${o.operation_id}/output`, { token: f.op })).status, 200);
    }
    assert.equal((await f.orch.api('GET', `/state/operations?node_id=${NODE}`, { token: f.op })).status, 200);
    assert.equal((await f.orch.api('GET', `/secrets/${SECRET}`, { token: f.op })).status, 200);
    assert.ok(f.responses.length > 20, 'the answers were recorded');
    assert.deepEqual(f.leaks(value), []);
  });

  it('after both processes stop (logs flushed, WAL checkpointed), only the managed file has it', async () => {
    await f.agent.kill('SIGTERM');
    await f.orch.kill('SIGTERM');
    assert.ok(readdirSync(f.orch.dataDir).includes('corral.db'));
    assert.ok(f.orch.output().split('\n').filter((l) => l.startsWith('{')).length > 20, 'trace logs were captured');
    assert.deepEqual(f.leaks(value), []);
    assert.equal(readFileSync(f.target, 'utf8'), `password=${value}\n`);
  });
});

describe('a secret given a new value (PUT): the file changes, neither value leaks', () => {
  const old = `s3cr3t-${randomUUID()}`;
  const fresh = `s3cr3t-${randomUUID()}`;
  const f = new SecretFleet();
  before(async () => {
    await f.start(NODE);
    await f.prepare(old);
    const apply = await f.run('apply');
    assert.equal(apply.status, 'succeeded', JSON.stringify(apply));
    assert.equal(readFileSync(f.target, 'utf8'), `password=${old}\n`);
    const updated = await f.orch.api('PUT', `/secrets/${SECRET}`, { token: f.op, body: { value: fresh } });
    assert.equal(updated.status, 200, updated.text);
    assert.equal(updated.json.version, 2);
  });
  after(() => f.stop());

  it('a plan after the new value masks the value on the machine (the old one) and the new one', async () => {
    const plan = await f.run('plan');
    const conf = plan.results.find((r) => r.resource_id === 'conf')!;
    assert.equal(conf.status, 'would_change');
    assert.match(conf.diff?.content ?? '', /^\+password=\*{8}$/m);
    assert.doesNotMatch(conf.diff?.content ?? '', /s3cr3t-/);
    assert.deepEqual(f.leaks(old), []);
    assert.deepEqual(f.leaks(fresh), []);
  });

  it('a drift check before the new value is applied leaks neither', async () => {
    const drift = await f.drift();
    assert.equal(drift.status, 'done', JSON.stringify(drift));
    assert.doesNotMatch(JSON.stringify(drift), /s3cr3t-/);
    assert.deepEqual(f.leaks(old), []);
    assert.deepEqual(f.leaks(fresh), []);
  });

  it('the apply writes the new value (an intentional change); output and diff masked', async () => {
    const apply = await f.run('apply');
    assert.equal(apply.status, 'succeeded', JSON.stringify(apply));
    const conf = apply.results.find((r) => r.resource_id === 'conf')!;
    assert.equal(conf.status, 'changed');
    assert.equal(conf.change_kind, 'intentional', 'the desired state changed: a new secret version');
    assert.equal(readFileSync(f.target, 'utf8'), `password=${fresh}\n`);
    assert.match(conf.diff?.content ?? '', /^\+password=\*{8}$/m);
    assert.doesNotMatch(conf.diff?.content ?? '', /s3cr3t-/);
    assert.equal((await f.output(apply.operation_id)).resources[0]?.stdout, `the value is ${MASK}\n`);
    const audit = await f.orch.api('GET', `/audit?action=secret.update&limit=10`, { token: await f.orch.adminToken() });
    assert.equal(audit.json.items.length, 1);
    assert.equal(audit.json.items[0].details.rotated, true);
    await f.agent.kill('SIGTERM');
    await f.orch.kill('SIGTERM');
    assert.deepEqual(f.leaks(old), []);
    assert.deepEqual(f.leaks(fresh), []);
  });
});
