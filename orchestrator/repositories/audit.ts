import type { AuditEvent } from '../../common/schemas/audit.js';
import type Database from 'better-sqlite3';
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
  /** Filtered queries differ only in which conditions are present: one prepared statement per shape. */
  private readonly queries = new Map<string, Database.Statement<Record<string, string | number>, AuditRow>>();

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
    const add = (condition: string, key: string, value: string | number | undefined) => {
      if (value === undefined) return;
      where.push(condition);
      args[key] = value;
    };
    if (f.action?.endsWith('*')) {
      add("action LIKE @action ESCAPE '\\'", 'action', f.action.slice(0, -1).replace(/[\\%_]/g, (c) => '\\' + c) + '%');
    } else {
      add('action = @action', 'action', f.action);
    }
    add('actor = @actor', 'actor', f.actor);
    add('target = @target', 'target', f.target);
    add('outcome = @outcome', 'outcome', f.outcome);
    add('time >= @since', 'since', f.since);
    add('time < @until', 'until', f.until);
    add('id < @beforeId', 'beforeId', f.beforeId);
    const sql = `SELECT * FROM audit_events ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY id DESC LIMIT @limit`;
    let stmt = this.queries.get(sql);
    if (!stmt) {
      stmt = this.db.prepare<Record<string, string | number>, AuditRow>(sql);
      this.queries.set(sql, stmt);
    }
    return stmt.all(args).map(toEvent);
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
