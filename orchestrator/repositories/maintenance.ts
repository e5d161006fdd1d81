import type { Db } from '../db/database.js';

export interface WindowRow {
  id: string;
  name: string;
  selector: string;
  starts_at: string;
  ends_at: string;
  reason: string;
  started_sent_at: string | null;
  ended_sent_at: string | null;
  created_at: string;
  created_by: string;
  updated_at: string;
  updated_by: string;
}

/** maintenance_windows. Status is never stored: it is derived from the times when read. */
export class MaintenanceRepository {
  private readonly insertStmt;
  private readonly getStmt;
  private readonly updateStmt;
  private readonly deleteStmt;
  private readonly openStmt;
  private readonly startedStmt;
  private readonly endedStmt;

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO maintenance_windows (id, name, selector, starts_at, ends_at, reason, started_sent_at, ended_sent_at, created_at, created_by, updated_at, updated_by)
       VALUES (@id, @name, @selector, @starts_at, @ends_at, @reason, NULL, NULL, @created_at, @created_by, @updated_at, @updated_by)`,
    );
    this.getStmt = db.prepare<[string], WindowRow>('SELECT * FROM maintenance_windows WHERE id = ?');
    this.updateStmt = db.prepare(
      `UPDATE maintenance_windows SET name = @name, selector = @selector, starts_at = @starts_at, ends_at = @ends_at, reason = @reason,
       updated_at = @updated_at, updated_by = @updated_by WHERE id = @id`,
    );
    this.deleteStmt = db.prepare<[string]>('DELETE FROM maintenance_windows WHERE id = ?');
    // Windows whose end has not been announced yet: scheduled, active, or ended while we were down.
    this.openStmt = db.prepare<[], WindowRow>('SELECT * FROM maintenance_windows WHERE ended_sent_at IS NULL ORDER BY starts_at, id');
    this.startedStmt = db.prepare<[string, string]>('UPDATE maintenance_windows SET started_sent_at = ? WHERE id = ? AND started_sent_at IS NULL');
    this.endedStmt = db.prepare<[string, string]>('UPDATE maintenance_windows SET ended_sent_at = ? WHERE id = ? AND ended_sent_at IS NULL');
  }

  insert(row: Omit<WindowRow, 'started_sent_at' | 'ended_sent_at'>): void {
    this.insertStmt.run(row);
  }

  get(id: string): WindowRow | undefined {
    return this.getStmt.get(id);
  }

  update(row: Pick<WindowRow, 'id' | 'name' | 'selector' | 'starts_at' | 'ends_at' | 'reason' | 'updated_at' | 'updated_by'>): void {
    this.updateStmt.run(row);
  }

  delete(id: string): void {
    this.deleteStmt.run(id);
  }

  /** Newest start first; `status` filters on the times as of `now`. Keyset on (starts_at, id) descending. */
  page(q: { now: string; status?: 'scheduled' | 'active' | 'ended'; before?: { starts_at: string; id: string }; limit: number }): WindowRow[] {
    const where: string[] = [];
    const params: Record<string, unknown> = { now: q.now, limit: q.limit };
    if (q.status === 'scheduled') where.push('starts_at > @now');
    if (q.status === 'active') where.push('starts_at <= @now AND ends_at > @now');
    if (q.status === 'ended') where.push('ends_at <= @now');
    if (q.before) {
      where.push('(starts_at < @beforeAt OR (starts_at = @beforeAt AND id < @beforeId))');
      params.beforeAt = q.before.starts_at;
      params.beforeId = q.before.id;
    }
    return this.db
      .prepare<Record<string, unknown>, WindowRow>(
        `SELECT * FROM maintenance_windows ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY starts_at DESC, id DESC LIMIT @limit`,
      )
      .all(params);
  }

  /** Every window whose end has not been announced. */
  open(): WindowRow[] {
    return this.openStmt.all();
  }

  /** True the first time only: maintenance.started is emitted once per window, restarts included. */
  markStartedSent(id: string, at: string): boolean {
    return this.startedStmt.run(at, id).changes > 0;
  }

  markEndedSent(id: string, at: string): boolean {
    return this.endedStmt.run(at, id).changes > 0;
  }
}
