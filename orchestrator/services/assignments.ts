// Assignments (modules bound to a selector) and their fan-out: one operation per matching
// agent, created at once and released to the agents' queues at most `concurrency` at a
// time, in rollout waves of `batch_size` when asked, stopping after a failing wave when
// `stop_on_failure` says so.
import { randomUUID } from 'node:crypto';
import type { Assignment, AssignmentCreate, AssignmentRunRequest, BatchSummary } from '../../common/schemas/assignments.js';
import type { List } from '../../common/schemas/shared.js';
import type { OperationKind, OperationSummary } from '../../common/schemas/state.js';
import type { Db } from '../db/database.js';
import { BadRequest, Conflict, NotFound } from '../http/errors.js';
import type { AssignmentRow, AssignmentsRepository, BatchRow } from '../repositories/assignments.js';
import type { AgentsService } from './agents.js';
import { summarise } from './batch-summary.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import type { ModulesService } from './modules.js';
import type { OperationsService } from './operations.js';

interface Rollout {
  waves: string[][];
  wave: number;
  inFlight: Set<string>;
  waiting: string[];
  failedInWave: boolean;
  stopOnFailure: boolean;
}

export class AssignmentsService {
  /** Whether a maintenance window covers the agent now (wired to MaintenanceService.windowFor). */
  private inMaintenance: (nodeId: string) => boolean = () => false;

  setMaintenanceLookup(lookup: (nodeId: string) => unknown): void {
    this.inMaintenance = (nodeId) => Boolean(lookup(nodeId));
  }

  private readonly rollouts = new Map<string, Rollout>();
  private readonly batchOf = new Map<string, string>();

  constructor(
    private readonly db: Db,
    private readonly repo: AssignmentsRepository,
    private readonly modules: ModulesService,
    private readonly agents: AgentsService,
    private readonly operations: OperationsService,
    private readonly concurrency: number,
  ) {
    modules.setAssignmentsLookup((moduleName) => this.using(moduleName));
    operations.events.on('finished', (op) => this.onFinished(op));
  }

  /** Names of the assignments whose module list includes the module. */
  using(moduleName: string): string[] {
    return this.repo
      .all()
      .filter((a) => (JSON.parse(a.modules) as string[]).includes(moduleName))
      .map((a) => a.name);
  }

  private toAssignment(row: AssignmentRow, fleet = this.agents.acceptedTags()): Assignment {
    let matching = 0;
    try {
      matching = this.agents.matching(row.selector, 'selector', fleet).length;
    } catch {
      // a stored selector always parsed when it was stored
    }
    return {
      name: row.name,
      description: row.description,
      selector: row.selector,
      modules: JSON.parse(row.modules) as string[],
      vars: JSON.parse(row.vars) as Assignment['vars'],
      only_in_maintenance: row.only_in_maintenance === 1,
      created_at: row.created_at,
      created_by: row.created_by,
      updated_at: row.updated_at,
      updated_by: row.updated_by,
      matching_agents: matching,
    };
  }

  private require(name: string): AssignmentRow {
    const row = this.repo.get(name);
    if (!row) throw new NotFound(`assignment ${name} does not exist`, 'assignment-not-found');
    return row;
  }

  create(req: AssignmentCreate, actor: string, now = new Date().toISOString()): Assignment {
    this.agents.matching(req.selector); // 400 invalid-selector, naming where
    const dup = req.modules.find((m, i) => req.modules.indexOf(m) !== i);
    if (dup !== undefined) throw new BadRequest(`module ${dup} is listed twice`, [{ field: 'body.modules', message: `duplicate module ${dup}` }], 'duplicate-module');
    const missing = req.modules.filter((m) => !this.modules.exists(m));
    if (missing.length) {
      throw new BadRequest(
        `module${missing.length === 1 ? '' : 's'} ${missing.join(', ')} ${missing.length === 1 ? 'does' : 'do'} not exist; upload ${missing.length === 1 ? 'it' : 'them'} first`,
        missing.map((m) => ({ field: `body.modules.${req.modules.indexOf(m)}`, message: `no module named ${m}` })),
        'unknown-module',
      );
    }
    const declared = new Set(req.modules.flatMap((m) => Object.keys(this.modules.content(m).definition.vars)));
    const unknown = Object.keys(req.vars ?? {}).filter((k) => !declared.has(k));
    if (unknown.length) {
      throw new BadRequest(`var${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')} not declared by the modules`, unknown.map((k) => ({ field: `body.vars.${k}`, message: 'not declared under vars in any of the modules' })), 'unknown-var');
    }
    this.db.transaction(() => {
      if (this.repo.get(req.name)) throw new Conflict(`assignment ${req.name} already exists; delete it first to change it`, 'assignment-exists');
      this.repo.insert({
        name: req.name,
        description: req.description ?? '',
        selector: req.selector,
        modules: JSON.stringify(req.modules),
        vars: JSON.stringify(req.vars ?? {}),
        only_in_maintenance: req.only_in_maintenance ? 1 : 0,
        created_at: now,
        created_by: actor,
      });
    })();
    return this.get(req.name);
  }

  get(name: string): Assignment {
    return this.toAssignment(this.require(name));
  }

  list(q: { limit?: number; cursor?: string }): List<Assignment> {
    const limit = q.limit ?? 100;
    const after = q.cursor === undefined ? '' : String(decodeCursor(q.cursor, 'after'));
    const rows = this.repo.page(after, limit + 1);
    const fleet = this.agents.acceptedTags();
    const items = rows.slice(0, limit).map((r) => this.toAssignment(r, fleet));
    return { items, next_cursor: rows.length > limit ? encodeCursor({ after: items[items.length - 1]!.name }) : null };
  }

  remove(name: string): Assignment {
    const a = this.get(name);
    this.repo.delete(name);
    return a;
  }

  /**
   * One operation per agent the selector matches now, answered at once. Offline agents,
   * and (for apply) agents outside a maintenance window when the assignment asks for one,
   * get a skipped operation with the reason.
   */
  async run(name: string, kind: OperationKind, req: AssignmentRunRequest, actor: string, now = new Date().toISOString()): Promise<BatchSummary> {
    const a = this.require(name);
    const modules = JSON.parse(a.modules) as string[];
    const missing = modules.filter((m) => !this.modules.exists(m));
    if (missing.length) throw new Conflict(`assignment ${name} names modules that no longer exist: ${missing.join(', ')}`, 'module-missing');
    const nodes = this.agents.matching(a.selector);
    const batch: BatchRow = {
      batch_id: randomUUID(),
      assignment: name,
      kind,
      batch_size: req.batch_size ?? null,
      stop_on_failure: req.stop_on_failure ? 1 : 0,
      created_at: now,
      created_by: actor,
    };
    this.repo.insertBatch(batch);
    const vars = JSON.parse(a.vars) as Assignment['vars'];
    const queued: string[] = [];
    for (const nodeId of nodes) {
      const start = { nodeId, kind, modules, vars, trigger: 'assignment' as const, actor, assignment: name, batchId: batch.batch_id, fanOut: true };
      let op: OperationSummary;
      if (kind === 'apply' && a.only_in_maintenance && !this.inMaintenance(nodeId)) {
        op = this.operations.skip(start, 'outside_maintenance', 'the assignment applies only inside a maintenance window, and none is open for this agent');
      } else {
        try {
          op = await this.operations.start(start);
        } catch (err) {
          op = this.operations.skip(start, 'refused', err instanceof Error ? err.message : String(err));
        }
      }
      if (op.status === 'queued') queued.push(op.operation_id);
    }
    this.startRollout(batch, queued);
    return this.batch(batch.batch_id);
  }

  private startRollout(batch: BatchRow, queued: string[]): void {
    if (!queued.length) return;
    const size = batch.batch_size ?? queued.length;
    const waves: string[][] = [];
    for (let i = 0; i < queued.length; i += size) waves.push(queued.slice(i, i + size));
    const rollout: Rollout = { waves, wave: 0, inFlight: new Set(), waiting: [...waves[0]!], failedInWave: false, stopOnFailure: batch.stop_on_failure === 1 };
    this.rollouts.set(batch.batch_id, rollout);
    for (const id of queued) this.batchOf.set(id, batch.batch_id);
    this.pump(batch.batch_id);
  }

  /** Releases waiting operations up to the concurrency limit; moves to the next wave when one is done. */
  private pump(batchId: string): void {
    const r = this.rollouts.get(batchId);
    if (!r) return;
    while (r.inFlight.size < this.concurrency && r.waiting.length) {
      const id = r.waiting.shift()!;
      r.inFlight.add(id);
      this.operations.release(id);
    }
    if (r.inFlight.size || r.waiting.length) return;
    r.wave++;
    if (r.wave >= r.waves.length) return void this.rollouts.delete(batchId);
    if (r.failedInWave && r.stopOnFailure) {
      for (const id of r.waves.slice(r.wave).flat()) {
        this.batchOf.delete(id);
        this.operations.cancelHeld(id, `rollout stopped: an agent in wave ${r.wave} of ${r.waves.length} failed (stop_on_failure)`);
      }
      return void this.rollouts.delete(batchId);
    }
    r.failedInWave = false;
    r.waiting = [...r.waves[r.wave]!];
    this.pump(batchId);
  }

  private onFinished(op: OperationSummary): void {
    const batchId = this.batchOf.get(op.operation_id);
    if (!batchId) return;
    this.batchOf.delete(op.operation_id);
    const r = this.rollouts.get(batchId);
    if (!r) return;
    r.inFlight.delete(op.operation_id);
    if (op.status === 'failed' || op.status === 'partial') r.failedInWave = true;
    this.pump(batchId);
  }

  batch(batchId: string): BatchSummary {
    const batch = this.repo.batch(batchId);
    if (!batch) throw new NotFound(`batch ${batchId} does not exist`, 'batch-not-found');
    const ops = this.operations.list({ batch_id: batchId, limit: 1000 }).items.reverse();
    return summarise(batch, ops.map((summary) => ({ summary, results: this.operations.resultsOf(summary.operation_id) })));
  }
}
