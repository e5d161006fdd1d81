import type { EventKind, Severity } from '../../../../common/schemas/events.js';
import type { Notification as InboxItem, NotificationQuery } from '../api/client.js';
import { loadNotifications } from '../services/notifications.service.js';
import { KeysetList } from './keyset-list.svelte.js';
import { followLive, liveEvents } from './live-events.svelte.js';

export const NOTIFICATIONS_PAGE_SIZE = 50;
/** New notifications arrive over the stream; this slow re-read only covers a stream that is down. */
const FALLBACK_REFRESH_MS = 60_000;

export interface NotificationFilters {
  unreadOnly: boolean;
  kind: EventKind | '';
  /** At least this severity. */
  severity: Severity | '';
}

export const NO_NOTIFICATION_FILTERS: NotificationFilters = { unreadOnly: false, kind: '', severity: '' };

/** The Notifications page's inbox: filtered, paged, re-read when the stream says something changed. */
export class NotificationListState extends KeysetList<InboxItem, NotificationFilters, NotificationQuery> {
  private stopLive: (() => void) | undefined;

  constructor() {
    super({
      pageSize: NOTIFICATIONS_PAGE_SIZE,
      refreshMs: FALLBACK_REFRESH_MS,
      filters: NO_NOTIFICATION_FILTERS,
      same: (a, b) => a.unreadOnly === b.unreadOnly && a.kind === b.kind && a.severity === b.severity,
      query: (f) => ({ unread: f.unreadOnly ? true : undefined, kind: f.kind || undefined, severity: f.severity || undefined }),
      read: (query, options) => loadNotifications(query, options),
      key: (n) => n.id,
    });
  }

  override start(): void {
    super.start();
    this.stopLive = followLive({
      triggers: [(soon) => liveEvents.on('notification', soon), (soon) => liveEvents.on('unread', soon), (soon) => liveEvents.on('hello', soon)],
      refresh: () => void this.refresh(),
    });
  }

  override stop(): void {
    super.stop();
    this.stopLive?.();
  }

  /** Shows a notification as read at once (the unread-only view drops it on the next read). */
  markShownRead(id: string): void {
    this.items = this.items.map((n) => (n.id === id ? { ...n, read: true } : n));
  }

  markAllShownRead(): void {
    this.items = this.items.map((n) => (n.read ? n : { ...n, read: true }));
  }
}
