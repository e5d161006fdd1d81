import type { Role } from '../../common/auth.js';
import type { Db } from '../db/database.js';

export interface EventRow {
  id: string;
  kind: string;
  severity: string;
  title: string;
  body: string;
  node_id: string | null;
  operation_id: string | null;
  window_id: string | null;
  held: number;
  actor: string | null;
  created_at: string;
}

export interface NotificationRow extends EventRow {
  read_at: string | null;
}

export interface InboxFilter {
  unread?: boolean;
  kind?: string;
  severities?: string[];
  since?: string;
  nodeId?: string;
  /** Keyset position: strictly older than (created_at, id). */
  before?: { created_at: string; id: string };
  limit: number;
}

/** events, notifications (per-operator read markers) and offline_alerts. */
export class EventsRepository {
  private readonly insertEventStmt;
  private readonly fanOutStmt;
  private readonly unreadStmt;
  private readonly readOneStmt;
  private readonly readAllStmt;
  private readonly oneStmt;
  private readonly heldStmt;
  private readonly pruneStmt;
  private readonly insertOfflineStmt;
  private readonly offlineStmt;
  private readonly clearOfflineStmt;

  constructor(private readonly db: Db) {
    this.insertEventStmt = db.prepare(
      `INSERT INTO events (id, kind, severity, title, body, node_id, operation_id, window_id, held, actor, created_at)
       VALUES (@id, @kind, @severity, @title, @body, @node_id, @operation_id, @window_id, @held, @actor, @created_at)`,
    );
    // One row per operator whose role may see the kind; operators added later start with an empty inbox.
    this.fanOutStmt = db.prepare<[string, string, string, string, string], { operator_id: string }>(
      `INSERT INTO notifications (operator_id, event_id, created_at)
       SELECT operator_id, ?, ? FROM operators WHERE role IN (?, ?, ?) RETURNING operator_id`,
    );
    this.unreadStmt = db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM notifications WHERE operator_id = ? AND read_at IS NULL');
    this.readOneStmt = db.prepare<[string, string, string]>('UPDATE notifications SET read_at = ? WHERE operator_id = ? AND event_id = ? AND read_at IS NULL');
    this.readAllStmt = db.prepare<[string, string]>('UPDATE notifications SET read_at = ? WHERE operator_id = ? AND read_at IS NULL');
    this.oneStmt = db.prepare<[string, string], NotificationRow>(
      `SELECT e.*, n.read_at FROM notifications n JOIN events e ON e.id = n.event_id WHERE n.operator_id = ? AND n.event_id = ?`,
    );
    this.heldStmt = db.prepare<[string], EventRow>('SELECT * FROM events WHERE window_id = ? AND held = 1 ORDER BY created_at, id');
    this.pruneStmt = db.prepare<[string]>('DELETE FROM events WHERE created_at < ?');
    this.insertOfflineStmt = db.prepare<[string, string, string]>('INSERT OR REPLACE INTO offline_alerts (node_id, offline_at, notified_at) VALUES (?, ?, ?)');
    this.offlineStmt = db.prepare<[string], { offline_at: string; notified_at: string }>('SELECT offline_at, notified_at FROM offline_alerts WHERE node_id = ?');
    this.clearOfflineStmt = db.prepare<[string]>('DELETE FROM offline_alerts WHERE node_id = ?');
  }

  /** Stores the event and one unread notification per operator of the given roles, in one transaction; answers who got one. */
  insert(row: EventRow, roles: readonly Role[]): string[] {
    const [a, b, c] = [roles[0], roles[1] ?? roles[0], roles[2] ?? roles[0]] as [Role, Role, Role];
    return this.db.transaction(() => {
      this.insertEventStmt.run(row);
      return this.fanOutStmt.all(row.id, row.created_at, a, b, c).map((r) => r.operator_id);
    })();
  }

  inbox(operatorId: string, f: InboxFilter): NotificationRow[] {
    const where = ['n.operator_id = @operatorId'];
    const params: Record<string, unknown> = { operatorId, limit: f.limit };
    if (f.unread === true) where.push('n.read_at IS NULL');
    if (f.unread === false) where.push('n.read_at IS NOT NULL');
    if (f.kind) {
      where.push('e.kind = @kind');
      params.kind = f.kind;
    }
    if (f.severities) {
      where.push(`e.severity IN (${f.severities.map((_, i) => `@sev${i}`).join(', ')})`);
      f.severities.forEach((s, i) => (params[`sev${i}`] = s));
    }
    if (f.since) {
      where.push('n.created_at >= @since');
      params.since = f.since;
    }
    if (f.nodeId) {
      where.push('e.node_id = @nodeId');
      params.nodeId = f.nodeId;
    }
    if (f.before) {
      where.push('(n.created_at < @beforeAt OR (n.created_at = @beforeAt AND n.event_id < @beforeId))');
      params.beforeAt = f.before.created_at;
      params.beforeId = f.before.id;
    }
    return this.db
      .prepare<Record<string, unknown>, NotificationRow>(
        `SELECT e.*, n.read_at FROM notifications n JOIN events e ON e.id = n.event_id
         WHERE ${where.join(' AND ')} ORDER BY n.created_at DESC, n.event_id DESC LIMIT @limit`,
      )
      .all(params);
  }

  notification(operatorId: string, eventId: string): NotificationRow | undefined {
    return this.oneStmt.get(operatorId, eventId);
  }

  unreadCount(operatorId: string): number {
    return this.unreadStmt.get(operatorId)!.n;
  }

  markRead(operatorId: string, eventId: string, at: string): number {
    return this.readOneStmt.run(at, operatorId, eventId).changes;
  }

  markAllRead(operatorId: string, at: string): number {
    return this.readAllStmt.run(at, operatorId).changes;
  }

  /** Events a maintenance window held back from channels, oldest first. */
  heldBy(windowId: string): EventRow[] {
    return this.heldStmt.all(windowId);
  }

  /** Deletes events (and so their notifications) older than `before`. */
  prune(before: string): number {
    return this.pruneStmt.run(before).changes;
  }

  markOfflineNotified(nodeId: string, offlineAt: string, notifiedAt: string): void {
    this.insertOfflineStmt.run(nodeId, offlineAt, notifiedAt);
  }

  offlineNotice(nodeId: string): { offline_at: string; notified_at: string } | undefined {
    return this.offlineStmt.get(nodeId);
  }

  clearOfflineNotice(nodeId: string): boolean {
    return this.clearOfflineStmt.run(nodeId).changes > 0;
  }
}
