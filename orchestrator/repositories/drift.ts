import type { Db } from '../db/database.js';

export interface DriftRow {
  seq: number;
  drift_id: string;
  node_id: string;
  baseline_operation_id: string;
  trigger: string;
  actor: string;
  status: 'running' | 'done' | 'failed';
  drifted: number;
  drifted_count: number;
  checked_count: number;
  message: string | null;
  requested_at: string;
  checked_at: string | null;
  items: string;
}

/** drift_records: one row per check, written when asked and when the agent answered. */
export class DriftRepository {
  private readonly insertStmt;
  private readonly byId;
  private readonly finishStmt;
  private readonly latestStmt;

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO drift_records (drift_id, node_id, baseline_operation_id, trigger, actor, status, requested_at)
       VALUES (@drift_id, @node_id, @baseline_operation_id, @trigger, @actor, 'running', @requested_at)`,
    );
    this.byId = db.prepare<[string], DriftRow>('SELECT * FROM drift_records WHERE drift_id = ?');
    this.finishStmt = db.prepare(
      `UPDATE drift_records SET status = @status, drifted = @drifted, drifted_count = @drifted_count, checked_count = @checked_count,
         message = @message, checked_at = @checked_at, items = @items WHERE drift_id = @drift_id AND status = 'running'`,
    );
    this.latestStmt = db.prepare<[string], DriftRow>("SELECT * FROM drift_records WHERE node_id = ? AND status != 'running' ORDER BY seq DESC LIMIT 1");
  }

  insert(row: Pick<DriftRow, 'drift_id' | 'node_id' | 'baseline_operation_id' | 'trigger' | 'actor' | 'requested_at'>): void {
    this.insertStmt.run(row);
  }

  get(driftId: string): DriftRow | undefined {
    return this.byId.get(driftId);
  }

  finish(row: Pick<DriftRow, 'drift_id' | 'status' | 'drifted' | 'drifted_count' | 'checked_count' | 'message' | 'checked_at' | 'items'>): boolean {
    return this.finishStmt.run(row).changes === 1;
  }

  /** The newest finished record. */
  latest(nodeId: string): DriftRow | undefined {
    return this.latestStmt.get(nodeId);
  }

  list(nodeId: string, beforeSeq: number | undefined, limit: number): DriftRow[] {
    return this.db
      .prepare<[string, number, number], DriftRow>('SELECT * FROM drift_records WHERE node_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?')
      .all(nodeId, beforeSeq ?? Number.MAX_SAFE_INTEGER, limit);
  }

  /** Checks a previous process left running. */
  failRunning(message: string, at: string): number {
    return this.db.prepare("UPDATE drift_records SET status = 'failed', message = ?, checked_at = ? WHERE status = 'running'").run(message, at).changes;
  }
}
