import type { Db } from '../db/database.js';

export interface OperationRow {
  seq: number;
  operation_id: string;
  kind: 'apply' | 'plan';
  node_id: string;
  status: string;
  trigger: string;
  actor: string;
  assignment: string | null;
  batch_id: string | null;
  modules: string;
  vars: string;
  inputs: string;
  resources: string;
  desired_hash: string;
  plan_operation_id: string | null;
  plan_hash: string | null;
  counts: string;
  message: string | null;
  code: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export type NewOperation = Omit<OperationRow, 'seq' | 'started_at' | 'finished_at' | 'plan_hash'> & { finished_at?: string | null };

export interface ResultRow {
  operation_id: string;
  position: number;
  module: string;
  resource_id: string;
  type: string;
  status: string;
  diff: string | null;
  message: string | null;
  duration_ms: number;
  change_kind: string | null;
  notified_by: string;
  observed: string | null;
  stdout: string | null;
  stderr: string | null;
  exit_code: number | null;
  truncated: number;
}

export interface OperationFilter {
  node_id?: string;
  kind?: string;
  status?: string;
  assignment?: string;
  batch_id?: string;
  since?: string;
  /** Keyset: rows with seq below this. */
  beforeSeq?: number;
  limit: number;
}

/** state_operations, state_results and believed_state. */
export class OperationsRepository {
  private readonly insertStmt;
  private readonly byId;
  private readonly resultsStmt;
  private readonly insertResultStmt;
  private readonly startStmt;
  private readonly finishStmt;
  private readonly believedStmt;
  private readonly setBelievedStmt;
  private readonly latestAppliedStmt;

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO state_operations (operation_id, kind, node_id, status, trigger, actor, assignment, batch_id, modules, vars, inputs, resources,
         desired_hash, plan_operation_id, counts, message, code, created_at, finished_at)
       VALUES (@operation_id, @kind, @node_id, @status, @trigger, @actor, @assignment, @batch_id, @modules, @vars, @inputs, @resources,
         @desired_hash, @plan_operation_id, @counts, @message, @code, @created_at, @finished_at)`,
    );
    this.byId = db.prepare<[string], OperationRow>('SELECT * FROM state_operations WHERE operation_id = ?');
    this.resultsStmt = db.prepare<[string], ResultRow>('SELECT * FROM state_results WHERE operation_id = ? ORDER BY position');
    this.insertResultStmt = db.prepare(
      `INSERT INTO state_results (operation_id, position, module, resource_id, type, status, diff, message, duration_ms, change_kind, notified_by, observed, stdout, stderr, exit_code, truncated)
       VALUES (@operation_id, @position, @module, @resource_id, @type, @status, @diff, @message, @duration_ms, @change_kind, @notified_by, @observed, @stdout, @stderr, @exit_code, @truncated)`,
    );
    this.startStmt = db.prepare("UPDATE state_operations SET status = 'running', started_at = ? WHERE operation_id = ? AND status = 'queued'");
    this.finishStmt = db.prepare(
      `UPDATE state_operations SET status = @status, counts = @counts, message = @message, code = @code, plan_hash = @plan_hash, finished_at = @finished_at
       WHERE operation_id = @operation_id AND status IN ('queued', 'running')`,
    );
    this.believedStmt = db.prepare<[string], { node_id: string; operation_id: string; applied_at: string }>('SELECT * FROM believed_state WHERE node_id = ?');
    this.setBelievedStmt = db.prepare(
      `INSERT INTO believed_state (node_id, operation_id, applied_at) VALUES (?, ?, ?)
       ON CONFLICT (node_id) DO UPDATE SET operation_id = excluded.operation_id, applied_at = excluded.applied_at`,
    );
    this.latestAppliedStmt = db.prepare<[string, number], { operation_id: string }>(
      "SELECT operation_id FROM state_operations WHERE node_id = ? AND kind = 'apply' AND seq > ? AND status NOT IN ('skipped', 'cancelled') LIMIT 1",
    );
  }

  insert(op: NewOperation): void {
    this.insertStmt.run({ ...op, finished_at: op.finished_at ?? null });
  }

  get(operationId: string): OperationRow | undefined {
    return this.byId.get(operationId);
  }

  results(operationId: string): ResultRow[] {
    return this.resultsStmt.all(operationId);
  }

  /** queued -> running; false when it was no longer queued (cancelled meanwhile). */
  start(operationId: string, at: string): boolean {
    return this.startStmt.run(at, operationId).changes === 1;
  }

  /** Results and the final status in one transaction; false when it had already finished. */
  finish(
    operationId: string,
    outcome: { status: string; counts: string; message: string | null; code: string | null; plan_hash: string | null; finished_at: string },
    results: Omit<ResultRow, 'operation_id'>[],
  ): boolean {
    return this.db.transaction(() => {
      const changed = this.finishStmt.run({ operation_id: operationId, ...outcome }).changes === 1;
      if (changed) for (const r of results) this.insertResultStmt.run({ operation_id: operationId, ...r });
      return changed;
    })();
  }

  /** Operations still queued or running (at start: a previous process left them). */
  unfinished(): OperationRow[] {
    return this.db.prepare<[], OperationRow>("SELECT * FROM state_operations WHERE status IN ('queued', 'running') ORDER BY seq").all();
  }

  list(f: OperationFilter): OperationRow[] {
    const where: string[] = [];
    const args: Record<string, string | number> = { limit: f.limit };
    for (const key of ['node_id', 'kind', 'status', 'assignment', 'batch_id'] as const) {
      if (f[key] !== undefined) {
        where.push(`${key} = @${key}`);
        args[key] = f[key];
      }
    }
    if (f.since !== undefined) {
      where.push('created_at >= @since');
      args.since = f.since;
    }
    if (f.beforeSeq !== undefined) {
      where.push('seq < @before');
      args.before = f.beforeSeq;
    }
    const sql = `SELECT * FROM state_operations ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq DESC LIMIT @limit`;
    return this.db.prepare<[Record<string, string | number>], OperationRow>(sql).all(args);
  }

  believed(nodeId: string): { node_id: string; operation_id: string; applied_at: string } | undefined {
    return this.believedStmt.get(nodeId);
  }

  setBelieved(nodeId: string, operationId: string, at: string): void {
    this.setBelievedStmt.run(nodeId, operationId, at);
  }

  /** Agents that have a baseline (a successful apply). */
  believedNodes(): string[] {
    return this.db.prepare<[], { node_id: string }>('SELECT node_id FROM believed_state ORDER BY node_id').all().map((r) => r.node_id);
  }

  /** Whether an apply was created on the node after the operation with this seq. */
  applyAfter(nodeId: string, seq: number): string | undefined {
    return this.latestAppliedStmt.get(nodeId, seq)?.operation_id;
  }
}
