// Drift checks: the agent re-reads every resource of its last successful apply without
// changing anything (a plan of the baseline) and each difference becomes a drift item.
// Checks run when asked and on a schedule; a newly drifted agent is announced on `events`
// (notifications subscribe to it).
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { maskDeep } from '../../common/mask.js';
import type { StateResourceResult } from '../../common/protocol.js';
import type { List } from '../../common/schemas/shared.js';
import type { BelievedState, DriftItem, DriftRecord, DriftSummary, OperationTrigger } from '../../common/schemas/state.js';
import { Conflict, NotFound } from '../http/errors.js';
import type { DriftRepository, DriftRow } from '../repositories/drift.js';
import type { AgentsService } from './agents.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import type { OperationsService } from './operations.js';
import type { StateRunner } from './state-runner.js';
import { redactForStorage } from './operations.js';
import { toWire, type ExpandedResource } from './template-expansion.js';

export interface DriftEvents {
  /** A check found drift where the previous finished check of the agent found none. */
  detected: [record: DriftSummary];
  /** A check found the agent in sync where the previous finished check found drift. */
  resolved: [record: DriftSummary];
  checked: [record: DriftSummary];
}

const GUARDS = ['creates', 'unless', 'check'];

/** A plan result of the baseline as a drift item. */
export function driftItem(r: StateResourceResult, guarded: boolean): DriftItem {
  const base = { module: r.module, resource_id: r.resource_id, type: r.type, expected: {}, actual: {}, diff: null, message: r.message ?? null };
  if (r.type === 'script' && !guarded) return { ...base, status: 'in_sync', message: 'a script without a creates/unless/check guard always runs; it is not checked for drift' };
  if (r.status === 'would_fail') return { ...base, status: 'error' };
  if (r.status !== 'would_change') return { ...base, status: 'in_sync' };
  const expected: Record<string, unknown> = {};
  const actual: Record<string, unknown> = {};
  for (const [k, change] of Object.entries(r.diff?.properties ?? {})) {
    expected[k] = change.after;
    actual[k] = change.before;
  }
  if (r.diff?.content !== undefined) {
    expected.content = 'as applied';
    actual.content = 'different (see diff)';
  }
  return { ...base, status: 'drifted', expected, actual, diff: r.diff ?? null };
}

export class DriftService {
  readonly events = new EventEmitter<DriftEvents>();
  private readonly running = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly repo: DriftRepository,
    private readonly operations: OperationsService,
    private readonly agents: AgentsService,
    private readonly runner: StateRunner,
    private readonly isLinked: (nodeId: string) => boolean,
    private readonly idleTimeoutMs = 10 * 60_000,
  ) {}

  /** Starts a check (202); the record is `running` until the agent answered. */
  check(nodeId: string, trigger: OperationTrigger, actor: string, now = new Date().toISOString()): DriftSummary {
    const agent = this.agents.require(nodeId);
    if (agent.status !== 'accepted') throw new Conflict(`agent ${nodeId} is ${agent.status}; only accepted agents are checked`, 'agent-not-accepted');
    const baseline = this.operations.baseline(nodeId);
    if (!baseline) throw new Conflict(`agent ${nodeId} has no successful apply yet: there is nothing to compare with`, 'no-baseline');
    if (!this.isLinked(nodeId)) throw new Conflict(`agent ${nodeId} is offline; a drift check needs the agent to read its machine`, 'agent_offline');
    const driftId = randomUUID();
    this.repo.insert({ drift_id: driftId, node_id: nodeId, baseline_operation_id: baseline.row.operation_id, trigger, actor, requested_at: now });
    this.running.add(nodeId);
    let mask: string[] = [];
    let guarded = new Map<string, boolean>();
    let rotated = new Map<string, string[]>();
    let resources: ExpandedResource[] = [];
    void this.runner
      .enqueue(nodeId, {
        build: () => {
          const revealed = this.operations.revealBaseline(nodeId);
          if (!revealed || revealed.operationId !== baseline.row.operation_id) throw new Error('the baseline changed while the check waited (an apply succeeded meanwhile); check again');
          mask = revealed.mask;
          rotated = revealed.rotated;
          resources = revealed.resources;
          guarded = new Map(revealed.resources.map((r) => [`${r.module}/${r.id}`, GUARDS.some((g) => r.properties[g] !== undefined)]));
          return { mode: 'drift', resources: toWire(revealed.resources), mask };
        },
        idleTimeoutMs: this.idleTimeoutMs,
      })
      .then((outcome) => {
        const at = new Date().toISOString();
        if (!outcome || !outcome.ok) {
          this.finish(nodeId, { drift_id: driftId, status: 'failed', drifted: 0, drifted_count: 0, checked_count: 0, message: outcome?.message ?? 'cancelled', checked_at: at, items: '[]' });
          return;
        }
        const results = redactForStorage(outcome.results.map((r) => maskDeep(r, mask)), resources);
        resources = [];
        const items = results.map((r) => {
          const key = `${r.module}/${r.resource_id}`;
          const secretsChanged = rotated.get(key);
          if (secretsChanged) {
            const message = `not compared: secret ${secretsChanged.join(', ')} has a new value since the baseline apply; apply to roll it out`;
            return { ...driftItem({ ...r, status: 'unchanged' }, true), message };
          }
          return driftItem(r, guarded.get(key) ?? false);
        });
        const drifted = items.filter((i) => i.status === 'drifted').length;
        const errors = items.filter((i) => i.status === 'error').length;
        this.finish(nodeId, {
          drift_id: driftId,
          status: 'done',
          drifted: drifted > 0 ? 1 : 0,
          drifted_count: drifted,
          checked_count: items.length,
          message: errors ? `${errors} resource(s) could not be read` : null,
          checked_at: at,
          items: JSON.stringify(items),
        });
      })
      .catch(() => this.running.delete(nodeId));
    return this.summary(this.repo.get(driftId)!);
  }

  private finish(nodeId: string, row: Parameters<DriftRepository['finish']>[0]): void {
    this.running.delete(nodeId);
    const previous = this.repo.latest(nodeId);
    if (!this.repo.finish(row)) return;
    const summary = this.summary(this.repo.get(row.drift_id)!);
    this.events.emit('checked', summary);
    if (summary.drifted && !(previous?.drifted === 1)) this.events.emit('detected', summary);
    if (summary.status === 'done' && !summary.drifted && previous?.drifted === 1) this.events.emit('resolved', summary);
  }

  summary(row: DriftRow): DriftSummary {
    return {
      drift_id: row.drift_id,
      node_id: row.node_id,
      baseline_operation_id: row.baseline_operation_id,
      trigger: row.trigger as OperationTrigger,
      actor: row.actor,
      status: row.status,
      drifted: row.drifted === 1,
      drifted_count: row.drifted_count,
      checked_count: row.checked_count,
      message: row.message,
      requested_at: row.requested_at,
      checked_at: row.checked_at,
    };
  }

  private record(row: DriftRow): DriftRecord {
    return { ...this.summary(row), items: JSON.parse(row.items) as DriftItem[] };
  }

  get(driftId: string): DriftRecord {
    const row = this.repo.get(driftId);
    if (!row) throw new NotFound(`drift record ${driftId} does not exist`, 'drift-not-found');
    return this.record(row);
  }

  latest(nodeId: string): DriftRecord {
    this.agents.require(nodeId);
    const row = this.repo.latest(nodeId);
    if (!row) throw new NotFound(`agent ${nodeId} has no finished drift check yet`, 'no-drift-record');
    return this.record(row);
  }

  latestGlance(nodeId: string): BelievedState['latest_drift'] {
    const row = this.repo.latest(nodeId);
    return row && row.checked_at ? { drift_id: row.drift_id, checked_at: row.checked_at, drifted: row.drifted === 1, drifted_count: row.drifted_count } : null;
  }

  list(nodeId: string, q: { limit?: number; cursor?: string }): List<DriftSummary> {
    this.agents.require(nodeId);
    const limit = q.limit ?? 100;
    const before = q.cursor === undefined ? undefined : Number(decodeCursor(q.cursor, 'seq'));
    const rows = this.repo.list(nodeId, before, limit + 1);
    const page = rows.slice(0, limit);
    return { items: page.map((r) => this.summary(r)), next_cursor: rows.length > limit ? encodeCursor({ seq: page[page.length - 1]!.seq }) : null };
  }

  /** One scheduled pass: every online agent with a baseline and no check under way. */
  checkAll(): number {
    let started = 0;
    for (const nodeId of this.operations.baselineNodes()) {
      if (this.running.has(nodeId) || !this.isLinked(nodeId)) continue;
      try {
        this.check(nodeId, 'schedule', 'system');
        started++;
      } catch {
        // not accepted any more, or went offline meanwhile: the next pass tries again
      }
    }
    return started;
  }

  /** Scheduled checks every intervalMs (0: none). The first pass waits one interval. */
  startSchedule(intervalMs: number, onError: (err: unknown) => void): void {
    if (intervalMs <= 0) return;
    this.timer = setInterval(() => {
      try {
        this.checkAll();
      } catch (err) {
        onError(err);
      }
    }, intervalMs);
    this.timer.unref();
  }

  recover(now = new Date().toISOString()): number {
    return this.repo.failRunning('the orchestrator restarted before the agent answered', now);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
