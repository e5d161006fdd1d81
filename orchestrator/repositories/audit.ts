import type { AuditEvent } from '../../common/schemas/audit.js';
import type { Db } from '../db/database.js';

export type NewAuditRow = Omit<AuditEvent, 'id' | 'details'> & { details: string };

interface AuditRow extends Omit<AuditEvent, 'details'> {
  details: string;
}

export interface AuditFilter {
  actor?: string;
  action?: string;
  target?: string;
  outcome?: string;
  since?: string;
  until?: string;
  beforeId?: number;
  limit: number;
}

function toEvent(row: AuditRow): AuditEvent {
  return { ...row, details: JSON.parse(row.details) as Record<string, unknown> };
}

export class AuditRepository {
  private readonly insertStmt;
  private readonly lastStmt;
  private readonly pruneStmt;
  private readonly lastBeforeStmt;
  private readonly ascending;

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO audit_events (time, actor_type, actor, action, target, outcome, source_ip, request_id, details, prev_hash, hash)
       VALUES (@time, @actor_type, @actor, @action, @target, @outcome, @source_ip, @request_id, @details, @prev_hash, @hash)`,
    );
    this.lastStmt = db.prepare<[], { hash: string }>('SELECT hash FROM audit_events ORDER BY id DESC LIMIT 1');
    this.lastBeforeStmt = db.prepare<[string], { id: number; hash: string }>(
      'SELECT id, hash FROM audit_events WHERE time < ? ORDER BY id DESC LIMIT 1',
    );
    this.pruneStmt = db.prepare('DELETE FROM audit_events WHERE id <= ?');
    this.ascending = db.prepare<[number, number], AuditRow>('SELECT * FROM audit_events WHERE id > ? ORDER BY id LIMIT ?');
  }

  lastHash(): string | undefined {
    return this.lastStmt.get()?.hash;
  }

  insert(row: NewAuditRow): number {
    return Number(this.insertStmt.run(row).lastInsertRowid);
  }

  /** Most recent first; `beforeId` is the keyset cursor. */
  query(f: AuditFilter): AuditEvent[] {
    const where: string[] = [];
    const args: Record<string, string | number> = { limit: f.limit };
    if (f.actor !== undefined) (where.push('actor = @actor'), (args.actor = f.actor));
    if (f.action !== undefined) {
      if (f.action.endsWith('*')) {
        where.push("action LIKE @action ESCAPE '\\'");
        args.action = f.action.slice(0, -1).replace(/[\\%_]/g, (c) => '\\' + c) + '%';
      } else {
        where.push('action = @action');
        args.action = f.action;
      }
    }
    if (f.target !== undefined) (where.push('target = @target'), (args.target = f.target));
    if (f.outcome !== undefined) (where.push('outcome = @outcome'), (args.outcome = f.outcome));
    if (f.since !== undefined) (where.push('time >= @since'), (args.since = f.since));
    if (f.until !== undefined) (where.push('time < @until'), (args.until = f.until));
    if (f.beforeId !== undefined) (where.push('id < @beforeId'), (args.beforeId = f.beforeId));
    const sql = `SELECT * FROM audit_events ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY id DESC LIMIT @limit`;
    return this.db.prepare<Record<string, string | number>, AuditRow>(sql).all(args).map(toEvent);
  }

  /** Deletes every event older than `before`; returns how many and the hash the chain had reached. */
  prune(before: string): { deleted: number; lastHash: string | null } {
    const last = this.lastBeforeStmt.get(before);
    if (!last) return { deleted: 0, lastHash: null };
    const deleted = this.pruneStmt.run(last.id).changes;
    return { deleted, lastHash: last.hash };
  }

  /** Oldest first, for walking the hash chain in pages. */
  page(afterId: number, limit: number): AuditEvent[] {
    return this.ascending.all(afterId, limit).map(toEvent);
  }
}
