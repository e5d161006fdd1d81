// The rules of desired-state operations: what an apply or plan runs (module revisions,
// expanded templates), when one is refused (offline agent, stale plan), the queue per agent,
// and what is kept when it ends (masked results, output, believed state).
import { createHash, randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { maskDeep, maskText, redactMachineSide } from '../../common/mask.js';
import { MAX_SCRIPT_TIMEOUT_S, type VarValue } from '../../common/modules/index.js';
import { planFingerprint, stableJson } from '../../common/node/plan-fingerprint.js';
import { SECRET_MASK, type StateResourceResult } from '../../common/protocol.js';
import type { List } from '../../common/schemas/shared.js';
import type {
  BelievedState,
  Operation,
  OperationKind,
  OperationModule,
  OperationOutput,
  OperationsQuery,
  OperationStatus,
  OperationSummary,
  OperationTrigger,
  ResourceResult,
  VarsMap,
} from '../../common/schemas/state.js';
import type { Db } from '../db/database.js';
import { BadRequest, Conflict, NotFound } from '../http/errors.js';
import type { OperationRow, OperationsRepository, ResultRow } from '../repositories/operations.js';
import type { AgentsService } from './agents.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import type { ModuleContent, ModulesService } from './modules.js';
import { classifyChanges, countResults, finalStatus } from './operation-outcome.js';
import type { SecretsService } from './secrets.js';
import type { RunOutcome, StateRunner } from './state-runner.js';
import { expandModules, TemplateError, toWire, type ExpandedResource } from './template-expansion.js';

export interface StartOperation {
  nodeId: string;
  kind: OperationKind;
  modules: string[];
  vars?: VarsMap;
  planOperationId?: string;
  trigger: OperationTrigger;
  actor: string;
  assignment?: string | null;
  batchId?: string | null;
  /**
   * Fan-out (assignments): an agent that cannot take the work gets a recorded skipped or
   * failed operation instead of an HTTP error, and the run waits for release().
   */
  fanOut?: boolean;
}

interface Inputs {
  tags: Record<string, string>;
  attributes: Record<string, unknown>;
  secret_versions: Record<string, number>;
}

interface Prepared {
  contents: ModuleContent[];
  vars: Record<string, VarValue>;
  inputs: Inputs;
  /** Expanded with secret values masked: what is stored and shown. */
  resources: ExpandedResource[];
  desiredHash: string;
}

export interface OperationEvents {
  /** Queued, then running: for the live stream. */
  progress: [summary: OperationSummary];
  finished: [summary: OperationSummary];
}

export interface OperationsOptions {
  /** Extra silence allowed beyond the longest script timeout before a run is given up. */
  idleGraceMs?: number;
  /** How long an apply given plan_operation_id waits for the agent's re-plan. */
  planCheckTimeoutMs?: number;
}

const DEFAULT_SCRIPT_TIMEOUT_S = 300;

function parse<T>(json: string | null, fallback: T): T {
  return json === null ? fallback : (JSON.parse(json) as T);
}

/** Results of resources that use secrets get their machine side hidden (see redactMachineSide). */
export function redactForStorage(results: StateResourceResult[], resources: readonly ExpandedResource[]): StateResourceResult[] {
  const secretive = new Set(resources.filter((r) => r.secrets.length > 0).map((r) => `${r.module}/${r.id}`));
  return results.map((r) => (secretive.has(`${r.module}/${r.resource_id}`) ? redactMachineSide(r) : r));
}

function desiredHash(resources: readonly ExpandedResource[], secretVersions: Record<string, number>): string {
  return createHash('sha256').update(stableJson({ resources, secretVersions })).digest('hex');
}

export class OperationsService {
  readonly events = new EventEmitter<OperationEvents>();
  /** Fan-out operations waiting for their rollout to release them, by operation id. */
  private readonly held = new Map<string, () => void>();
  private readonly idleGraceMs: number;
  private readonly planCheckTimeoutMs: number;
  private latestDrift: (nodeId: string) => BelievedState['latest_drift'] = () => null;

  constructor(
    private readonly db: Db,
    private readonly repo: OperationsRepository,
    private readonly modules: ModulesService,
    private readonly secrets: SecretsService,
    private readonly agents: AgentsService,
    private readonly runner: StateRunner,
    private readonly isLinked: (nodeId: string) => boolean,
    options: OperationsOptions = {},
  ) {
    this.idleGraceMs = options.idleGraceMs ?? 120_000;
    this.planCheckTimeoutMs = options.planCheckTimeoutMs ?? 60_000;
  }

  setLatestDrift(lookup: (nodeId: string) => BelievedState['latest_drift']): void {
    this.latestDrift = lookup;
  }

  /** Module revisions, vars and expansion inputs for a node: everything but secret values. */
  private prepare(nodeId: string, moduleNames: string[], vars: VarsMap | undefined): Prepared {
    const dup = moduleNames.find((n, i) => moduleNames.indexOf(n) !== i);
    if (dup !== undefined) throw new BadRequest(`module ${dup} is listed twice`, [{ field: 'body.modules', message: `duplicate module ${dup}` }], 'duplicate-module');
    const contents = moduleNames.map((name) => this.modules.content(name));
    const declared = new Set(contents.flatMap((c) => Object.keys(c.definition.vars)));
    const unknown = Object.keys(vars ?? {}).filter((k) => !declared.has(k));
    if (unknown.length) {
      throw new BadRequest(
        `var${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not declared by ${moduleNames.join(', ')}${declared.size ? ` (declared: ${[...declared].sort().join(', ')})` : ''}`,
        unknown.map((k) => ({ field: `body.vars.${k}`, message: 'not declared under vars in any of the modules' })),
        'unknown-var',
      );
    }
    const secretVersions: Record<string, number> = {};
    for (const name of new Set(contents.flatMap((c) => c.secrets))) {
      const v = this.secrets.versionOf(name);
      if (v === undefined) throw new Conflict(`secret ${name}, used by the modules, no longer exists`, 'secret-missing');
      secretVersions[name] = v;
    }
    const inputs: Inputs = { tags: this.agents.tags(nodeId), attributes: this.agents.attributes(nodeId).attributes, secret_versions: secretVersions };
    const resources = this.expand(contents, vars ?? {}, inputs, () => SECRET_MASK);
    return { contents, vars: vars ?? {}, inputs, resources, desiredHash: desiredHash(resources, secretVersions) };
  }

  private expand(contents: readonly ModuleContent[], vars: Record<string, VarValue>, inputs: Inputs, secret: (name: string) => string): ExpandedResource[] {
    return expandModules(
      contents.map((c) => c.definition),
      { vars, tags: inputs.tags, attributes: inputs.attributes, secret },
    );
  }

  /** The same expansion with the real values, and the values to mask. Called at send time only. */
  private reveal(contents: readonly ModuleContent[], vars: Record<string, VarValue>, inputs: Inputs): { resources: ExpandedResource[]; mask: string[] } {
    const values = new Map<string, string>();
    const resources = this.expand(contents, vars, inputs, (name) => {
      if (!values.has(name)) values.set(name, this.secrets.reveal(name));
      return values.get(name)!;
    });
    return { resources, mask: [...values.values()] };
  }

  private idleTimeoutMs(resources: readonly ExpandedResource[]): number {
    let longest = 0;
    for (const r of resources) {
      if (r.type !== 'script') continue;
      const t = typeof r.properties.timeout === 'number' ? r.properties.timeout : DEFAULT_SCRIPT_TIMEOUT_S;
      longest = Math.max(longest, Math.min(t, MAX_SCRIPT_TIMEOUT_S));
    }
    return longest * 1000 + this.idleGraceMs;
  }

  /**
   * Creates the operation and queues it (202). Refusals come as HTTP errors and store
   * nothing, except in a fan-out where they become the agent's skipped/failed operation.
   */
  async start(req: StartOperation, now = new Date().toISOString()): Promise<OperationSummary> {
    const agent = this.agents.require(req.nodeId);
    const operationId = randomUUID();
    const record = (status: OperationStatus, code: string, message: string, modules: OperationModule[] = [], desired = ''): OperationSummary =>
      this.recordFinished(req, { status, code, message, modules, desired }, now);
    if (agent.status !== 'accepted') {
      if (req.fanOut) return record('skipped', 'agent_not_accepted', `the agent is ${agent.status}, not accepted`);
      throw new Conflict(`agent ${req.nodeId} is ${agent.status}; only accepted agents take work`, 'agent-not-accepted');
    }
    if (req.kind === 'plan' && req.planOperationId !== undefined) {
      throw new BadRequest('plan_operation_id is for apply only', [{ field: 'body.plan_operation_id', message: 'only an apply carries out a plan' }]);
    }
    const prepared = this.prepareOrRecord(req, record);
    if ('operation_id' in prepared) return prepared;
    const modules = prepared.contents.map((c) => ({ name: c.name, revision: c.revision, content_hash: c.content_hash }));
    if (!this.isLinked(req.nodeId)) {
      if (req.fanOut) return record('skipped', 'agent_offline', 'the agent was offline when the work was asked for', modules, prepared.desiredHash);
      throw new Conflict(`agent ${req.nodeId} is offline; work can only be sent to a connected agent`, 'agent_offline');
    }
    const expectPlan = req.planOperationId !== undefined ? await this.checkPlan(req.planOperationId, req.nodeId, prepared) : undefined;

    this.repo.insert({
      ...this.newRow(req, operationId, now),
      status: 'queued',
      modules: JSON.stringify(modules),
      inputs: JSON.stringify(prepared.inputs),
      resources: JSON.stringify(prepared.resources),
      desired_hash: prepared.desiredHash,
      counts: JSON.stringify(countResults([])),
      message: null,
      code: null,
    });
    const go = () => void this.run(operationId, prepared, expectPlan);
    if (req.fanOut) this.held.set(operationId, go);
    else go();
    const queued = this.summary(this.repo.get(operationId)!);
    this.events.emit('progress', queued);
    return queued;
  }

  private prepareOrRecord(req: StartOperation, record: (status: OperationStatus, code: string, message: string) => OperationSummary): Prepared | OperationSummary {
    try {
      return this.prepare(req.nodeId, req.modules, req.vars);
    } catch (err) {
      if (!(err instanceof TemplateError)) throw err;
      const message = `templates could not be expanded for this agent: ${err.message}`;
      if (req.fanOut) return record('failed', 'template_unresolved', message);
      throw new Conflict(message, 'template_unresolved');
    }
  }

  /** Records an operation the caller decided not to run (e.g. outside a maintenance window). */
  skip(req: StartOperation, code: string, message: string, now = new Date().toISOString()): OperationSummary {
    return this.recordFinished(req, { status: 'skipped', code, message, modules: [], desired: '' }, now);
  }

  /** An operation that ends as it is created: skipped, or failed before it could be queued. */
  private recordFinished(
    req: StartOperation,
    end: { status: OperationStatus; code: string; message: string; modules: OperationModule[]; desired: string },
    now: string,
  ): OperationSummary {
    const operationId = randomUUID();
    this.repo.insert({
      ...this.newRow(req, operationId, now),
      status: end.status,
      modules: JSON.stringify(end.modules),
      inputs: '{}',
      resources: '[]',
      desired_hash: end.desired,
      counts: JSON.stringify(countResults([])),
      message: end.message,
      code: end.code,
      finished_at: now,
    });
    const summary = this.summary(this.repo.get(operationId)!);
    this.events.emit('finished', summary);
    return summary;
  }

  /** The columns every new operation row has from its request. */
  private newRow(req: StartOperation, operationId: string, now: string) {
    return {
      operation_id: operationId,
      kind: req.kind,
      node_id: req.nodeId,
      trigger: req.trigger,
      actor: req.actor,
      assignment: req.assignment ?? null,
      batch_id: req.batchId ?? null,
      vars: JSON.stringify(req.vars ?? {}),
      plan_operation_id: req.planOperationId ?? null,
      created_at: now,
    };
  }

  /** Results of several operations (batch summaries group agents by them). */
  resultsOf(operationId: string): ResourceResult[] {
    return this.repo.results(operationId).map((r) => this.result(r));
  }

  /** Sends a held (fan-out) operation to its agent's queue. */
  release(operationId: string): void {
    const release = this.held.get(operationId);
    if (!release) return;
    this.held.delete(operationId);
    release();
  }

  /** Ends a held operation without running it (a rollout stopped on a failure). */
  cancelHeld(operationId: string, message: string, now = new Date().toISOString()): void {
    if (!this.held.delete(operationId)) return;
    this.end(operationId, { status: 'cancelled', code: 'rollout_stopped', message }, [], null, now);
  }

  /**
   * An apply given a plan must do exactly what the plan showed: same module revisions, vars,
   * tags, attributes and secret versions, no apply in between, and the agent re-planning
   * now gets the same result. Answers the fingerprint the agent checks once more at run time.
   */
  private async checkPlan(planId: string, nodeId: string, prepared: Prepared): Promise<string> {
    const plan = this.repo.get(planId);
    if (!plan || plan.kind !== 'plan') throw new NotFound(`plan operation ${planId} does not exist`, 'plan-not-found');
    const stale = (why: string) => new Conflict(`plan ${planId} is stale: ${why}; plan again and review the new result`, 'plan_stale');
    if (plan.node_id !== nodeId) throw new BadRequest(`plan ${planId} was made for agent ${plan.node_id}, not ${nodeId}`, [{ field: 'body.plan_operation_id', message: 'a plan of another agent' }], 'plan-other-agent');
    if (plan.status !== 'succeeded' && plan.status !== 'partial') throw new Conflict(`plan ${planId} is ${plan.status}; only a finished plan can be applied`, 'plan-not-finished');
    const planned = parse<OperationModule[]>(plan.modules, []);
    const now = prepared.contents;
    if (planned.map((m) => m.name).join('\n') !== now.map((m) => m.name).join('\n')) throw stale(`it planned modules ${planned.map((m) => m.name).join(', ')}, this apply names ${now.map((m) => m.name).join(', ')}`);
    const revised = now.filter((c, i) => c.content_hash !== planned[i]!.content_hash);
    if (revised.length) throw stale(`module ${revised.map((c) => `${c.name} is now revision ${c.revision}`).join(', ')}`);
    if (stableJson(parse(plan.vars, {})) !== stableJson(prepared.vars)) throw stale('the vars differ');
    if (plan.desired_hash !== prepared.desiredHash) throw stale("the desired state changed (the agent's tags or attributes, or a secret's value)");
    const later = this.repo.applyAfter(nodeId, plan.seq);
    if (later) throw stale(`apply ${later} ran on the agent after it`);
    if (!plan.plan_hash) throw stale('it has no result to compare with');

    // The machine: re-plan now and compare what it would do.
    const { resources, mask } = this.reveal(prepared.contents, prepared.vars, prepared.inputs);
    const outcome = await this.runner.enqueue(nodeId, {
      build: () => ({ mode: 'plan', resources: toWire(resources), mask }),
      idleTimeoutMs: Math.min(this.idleTimeoutMs(resources), this.planCheckTimeoutMs),
    });
    if (!outcome || !outcome.ok) {
      if (outcome?.code === 'agent_offline' || outcome?.code === 'agent_gone') throw new Conflict(`agent ${nodeId} went offline while the plan was checked`, 'agent_offline');
      throw stale(`the agent could not re-plan (${outcome?.message ?? 'cancelled'})`);
    }
    const masked = outcome.results.map((r) => maskDeep(r, mask));
    const results = redactForStorage(masked, resources);
    if (planFingerprint(masked) !== plan.plan_hash) {
      const before = new Map(this.repo.results(planId).map((r) => [`${r.module}/${r.resource_id}`, `${r.status} ${r.diff ?? ''}`]));
      const moved = results.filter((r) => before.get(`${r.module}/${r.resource_id}`) !== `${r.status} ${r.diff ? JSON.stringify(r.diff) : ''}`);
      throw stale(`the machine changed since (now different: ${moved.map((r) => `${r.module}/${r.resource_id} ${r.status}`).slice(0, 10).join(', ') || 'resource results'})`);
    }
    return plan.plan_hash;
  }

  private async run(operationId: string, prepared: Prepared, expectPlan: string | undefined): Promise<void> {
    const row = this.repo.get(operationId)!;
    let mask: string[] = [];
    let outcome: RunOutcome | null;
    try {
      outcome = await this.runner.enqueue(row.node_id, {
        build: () => {
          if (this.repo.get(operationId)?.status !== 'queued') return null;
          const revealed = this.reveal(prepared.contents, prepared.vars, prepared.inputs);
          mask = revealed.mask;
          return { mode: row.kind, resources: toWire(revealed.resources), mask, ...(expectPlan !== undefined ? { expect_plan: expectPlan } : {}) };
        },
        onStart: () => {
          const started = this.repo.start(operationId, new Date().toISOString());
          if (started) this.events.emit('progress', this.summary(this.repo.get(operationId)!));
          return started;
        },
        idleTimeoutMs: this.idleTimeoutMs(prepared.resources),
      });
    } catch (err) {
      outcome = { ok: false, code: 'internal', message: err instanceof Error ? err.message : String(err), results: [] };
    }
    if (!outcome) return; // cancelled while it waited
    const masked = outcome.results.map((r) => maskDeep(r, mask));
    // The plan's fingerprint is over what the agent compares (masked); what is kept is also redacted.
    const planHash = row.kind === 'plan' && outcome.ok ? planFingerprint(masked) : null;
    const results = redactForStorage(masked, prepared.resources);
    const message = outcome.message !== undefined ? maskText(outcome.message, mask) : undefined;
    if (!outcome.ok) {
      const neverRan = outcome.code === 'agent_offline' || outcome.code === 'stopping';
      this.end(operationId, { status: neverRan && results.length === 0 ? 'cancelled' : 'failed', code: outcome.code ?? 'failed', message: message ?? 'the run failed' }, results, prepared, new Date().toISOString());
      return;
    }
    const counts = countResults(results);
    this.end(operationId, { status: finalStatus(row.kind, counts), code: null, message: null }, results, prepared, new Date().toISOString(), planHash);
  }

  private end(
    operationId: string,
    outcome: { status: OperationStatus; code: string | null; message: string | null },
    results: StateResourceResult[],
    prepared: Prepared | null,
    now: string,
    planHash: string | null = null,
  ): void {
    const row = this.repo.get(operationId)!;
    let kinds: (string | null)[] = results.map(() => null);
    if (row.kind === 'apply' && prepared) {
      const baseline = this.baseline(row.node_id);
      kinds = classifyChanges(
        results,
        { resources: prepared.resources, secretVersions: prepared.inputs.secret_versions },
        baseline ? { resources: baseline.resources, secretVersions: baseline.inputs.secret_versions } : undefined,
      );
    }
    const rows: Omit<ResultRow, 'operation_id'>[] = results.map((r, position) => ({
      position,
      module: r.module,
      resource_id: r.resource_id,
      type: r.type,
      status: r.status,
      diff: r.diff ? JSON.stringify(r.diff) : null,
      message: r.message ?? null,
      duration_ms: r.duration_ms,
      change_kind: kinds[position] ?? null,
      notified_by: JSON.stringify(r.notified_by ?? []),
      observed: r.observed !== undefined ? JSON.stringify(r.observed) : null,
      stdout: r.output ? r.output.stdout : null,
      stderr: r.output ? r.output.stderr : null,
      exit_code: r.output ? r.output.exit_code : null,
      truncated: r.output?.truncated ? 1 : 0,
    }));
    const ended = this.db.transaction(() => {
      const ok = this.repo.finish(operationId, { ...outcome, counts: JSON.stringify(countResults(results)), plan_hash: planHash, finished_at: now }, rows);
      if (ok && row.kind === 'apply' && outcome.status === 'succeeded') this.repo.setBelieved(row.node_id, operationId, now);
      return ok;
    })();
    if (ended) this.events.emit('finished', this.summary(this.repo.get(operationId)!));
  }

  /** Operations a previous process left queued or running can never finish: say so. */
  recover(now = new Date().toISOString()): number {
    const stale = this.repo.unfinished();
    for (const row of stale) this.end(row.operation_id, { status: 'cancelled', code: 'orchestrator_restarted', message: 'the orchestrator restarted before the operation finished' }, [], null, now);
    return stale.length;
  }

  summary(row: OperationRow): OperationSummary {
    return {
      operation_id: row.operation_id,
      kind: row.kind,
      node_id: row.node_id,
      status: row.status as OperationStatus,
      trigger: row.trigger as OperationTrigger,
      actor: row.actor,
      assignment: row.assignment,
      batch_id: row.batch_id,
      modules: parse(row.modules, []),
      vars: parse(row.vars, {}),
      plan_operation_id: row.plan_operation_id,
      plan_hash: row.plan_hash,
      counts: { ...countResults([]), ...parse(row.counts, {}) },
      message: row.message,
      code: row.code,
      created_at: row.created_at,
      started_at: row.started_at,
      finished_at: row.finished_at,
    };
  }

  private require(operationId: string): OperationRow {
    const row = this.repo.get(operationId);
    if (!row) throw new NotFound(`operation ${operationId} does not exist`, 'operation-not-found');
    return row;
  }

  private result(r: ResultRow): ResourceResult {
    return {
      module: r.module,
      resource_id: r.resource_id,
      type: r.type as ResourceResult['type'],
      status: r.status as ResourceResult['status'],
      diff: parse(r.diff, null),
      message: r.message,
      duration_ms: r.duration_ms,
      change_kind: r.change_kind as ResourceResult['change_kind'],
      notified_by: parse(r.notified_by, []),
      has_output: r.stdout !== null || r.stderr !== null,
    };
  }

  get(operationId: string): Operation {
    const row = this.require(operationId);
    return { ...this.summary(row), results: this.repo.results(operationId).map((r) => this.result(r)) };
  }

  list(q: OperationsQuery): List<OperationSummary> {
    const limit = q.limit ?? 100;
    const beforeSeq = q.cursor === undefined ? undefined : Number(decodeCursor(q.cursor, 'seq'));
    const rows = this.repo.list({ ...q, ...(q.since !== undefined ? { since: new Date(q.since).toISOString() } : {}), beforeSeq, limit: limit + 1 });
    const page = rows.slice(0, limit);
    return { items: page.map((r) => this.summary(r)), next_cursor: rows.length > limit ? encodeCursor({ seq: page[page.length - 1]!.seq }) : null };
  }

  output(nodeId: string, operationId: string): OperationOutput {
    const row = this.require(operationId);
    if (row.node_id !== nodeId) throw new NotFound(`operation ${operationId} is not an operation of agent ${nodeId}`, 'operation-not-found');
    const resources = this.repo
      .results(operationId)
      .filter((r) => r.stdout !== null || r.stderr !== null)
      .map((r) => ({ module: r.module, resource_id: r.resource_id, stdout: r.stdout ?? '', stderr: r.stderr ?? '', exit_code: r.exit_code, truncated: r.truncated === 1 }));
    return { operation_id: operationId, node_id: nodeId, resources };
  }

  /** The last successful apply: what drift checks compare against and believed state shows. */
  baseline(nodeId: string): { row: OperationRow; inputs: Inputs; resources: ExpandedResource[]; contents: () => ModuleContent[] } | undefined {
    const b = this.repo.believed(nodeId);
    if (!b) return undefined;
    const row = this.repo.get(b.operation_id)!;
    return {
      row,
      inputs: parse<Inputs>(row.inputs, { tags: {}, attributes: {}, secret_versions: {} }),
      resources: parse<ExpandedResource[]>(row.resources, []),
      contents: () => parse<OperationModule[]>(row.modules, []).map((m) => this.modules.contentByHash(m.name, m.content_hash)),
    };
  }

  /** The baseline's resources with real secret values, for a drift check; throws when a module revision is gone. */
  revealBaseline(nodeId: string): { operationId: string; resources: ExpandedResource[]; mask: string[]; rotated: Map<string, string[]> } | undefined {
    const b = this.baseline(nodeId);
    if (!b) return undefined;
    const revealed = this.reveal(b.contents(), parse(b.row.vars, {}), b.inputs);
    // A secret with a new value since the baseline makes its resources differ by design, not by drift.
    const rotated = new Map<string, string[]>();
    for (const r of revealed.resources) {
      const changed = r.secrets.filter((s) => this.secrets.versionOf(s) !== b.inputs.secret_versions[s]);
      if (changed.length) rotated.set(`${r.module}/${r.id}`, changed);
    }
    return { operationId: b.row.operation_id, ...revealed, rotated };
  }

  believed(nodeId: string): BelievedState {
    this.agents.require(nodeId);
    const b = this.baseline(nodeId);
    if (!b) return { node_id: nodeId, baseline_operation_id: null, applied_at: null, modules: [], resources: [], latest_drift: this.latestDrift(nodeId) };
    const desired = new Map(b.resources.map((r) => [`${r.module}/${r.id}`, r]));
    return {
      node_id: nodeId,
      baseline_operation_id: b.row.operation_id,
      applied_at: b.row.finished_at,
      modules: parse(b.row.modules, []),
      resources: this.repo.results(b.row.operation_id).map((r) => ({
        module: r.module,
        resource_id: r.resource_id,
        type: r.type as ResourceResult['type'],
        desired: desired.get(`${r.module}/${r.resource_id}`)?.properties ?? {},
        observed: parse(r.observed, null),
        status: r.status as ResourceResult['status'],
        operation_id: b.row.operation_id,
        applied_at: b.row.finished_at ?? b.row.created_at,
      })),
      latest_drift: this.latestDrift(nodeId),
    };
  }

  baselineNodes(): string[] {
    return this.repo.believedNodes();
  }
}
