import { SEVERITIES, severityAtLeast, type Notification, type NotificationList, type NotificationQuery, type ReadResult } from '../../common/schemas/events.js';
import { NotFound } from '../http/errors.js';
import type { EventsRepository, NotificationRow } from '../repositories/events.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { eventFromRow } from './event-bus.js';
import { startPeriodic } from './periodic.js';

const DAY_MS = 24 * 3600_000;

function toNotification(row: NotificationRow): Notification {
  const { actor: _actor, ...event } = eventFromRow(row);
  return { ...event, read: row.read_at !== null, read_at: row.read_at };
}

/** Each operator's inbox: listing with filters, read markers that touch only the caller's own rows. */
export class NotificationsService {
  private readonly readListeners: ((operatorId: string, unread: number) => void)[] = [];
  private stopPrune: (() => void) | undefined;

  constructor(
    private readonly repo: EventsRepository,
    private readonly retentionDays: number,
  ) {}

  /** Called after an operator's read markers changed, so their other tabs update the badge. */
  onRead(listener: (operatorId: string, unread: number) => void): void {
    this.readListeners.push(listener);
  }

  list(operatorId: string, q: NotificationQuery): NotificationList {
    const limit = q.limit ?? 100;
    let before: { created_at: string; id: string } | undefined;
    if (q.cursor !== undefined) {
      const at = decodeCursor(q.cursor, 'at');
      const id = decodeCursor(q.cursor, 'id');
      before = { created_at: String(at), id: String(id) };
    }
    const rows = this.repo.inbox(operatorId, {
      unread: q.unread,
      kind: q.kind,
      severities: q.severity ? SEVERITIES.filter((s) => severityAtLeast(s, q.severity!)) : undefined,
      since: q.since ? new Date(q.since).toISOString() : undefined,
      nodeId: q.node_id,
      before,
      limit: limit + 1,
    });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      items: page.map(toNotification),
      next_cursor: rows.length > limit && last ? encodeCursor({ at: last.created_at, id: last.id }) : null,
      unread_count: this.repo.unreadCount(operatorId),
    };
  }

  unreadCount(operatorId: string): number {
    return this.repo.unreadCount(operatorId);
  }

  markRead(operatorId: string, id: string): ReadResult {
    if (!this.repo.notification(operatorId, id)) throw new NotFound(`you have no notification ${id}`, 'notification-not-found');
    const marked = this.repo.markRead(operatorId, id, new Date().toISOString());
    return this.afterRead(operatorId, marked);
  }

  markAllRead(operatorId: string): ReadResult {
    const marked = this.repo.markAllRead(operatorId, new Date().toISOString());
    return this.afterRead(operatorId, marked);
  }

  /** Deletes events (and their notifications) older than the retention, daily. 0 keeps everything. */
  startRetention(onError: (err: unknown) => void): void {
    if (this.retentionDays <= 0) return;
    this.stopPrune = startPeriodic(() => void this.repo.prune(new Date(Date.now() - this.retentionDays * DAY_MS).toISOString()), DAY_MS, onError);
  }

  stop(): void {
    this.stopPrune?.();
  }

  private afterRead(operatorId: string, marked: number): ReadResult {
    const unread = this.repo.unreadCount(operatorId);
    if (marked > 0) for (const listener of this.readListeners) listener(operatorId, unread);
    return { marked, unread_count: unread };
  }
}
