import { desktopBridge } from '../../../../common/desktop-bridge.js';
import type { LiveEventMap } from '../../../../common/schemas/events.js';
import type { Notification as InboxItem } from '../api/client.js';
import { loadNotifications, markAllNotificationsRead, markNotificationRead } from '../services/notifications.service.js';
import { liveEvents, type LiveEvents } from './live-events.svelte.js';
import { routeHref, type RouteQuery } from './router.svelte.js';

/** How many notifications the bell's panel shows. */
export const BELL_SIZE = 20;

/**
 * The signed-in operator's unread count and newest notifications (the bell), kept live by
 * the event stream: `hello` and `unread` set the count, `notification` adds one. The count
 * is the server's, so marking read in one tab updates every other tab.
 */
export class NotificationsState {
  unread = $state(0);
  /** Newest first, at most BELL_SIZE. */
  recent = $state<InboxItem[]>([]);
  recentLoaded = $state(false);
  loadingRecent = $state(false);
  /** The recent list may no longer match the server (read markers changed elsewhere). */
  private stale = true;

  constructor(live: LiveEvents) {
    live.on('hello', (m) => {
      this.unread = m.unread_count;
      this.stale = true;
    });
    live.on('notification', (m) => {
      this.unread = m.unread_count;
      this.recent = [m.notification, ...this.recent.filter((n) => n.id !== m.notification.id)].slice(0, BELL_SIZE);
    });
    live.on('unread', (m) => {
      this.unread = m.unread_count;
      if (m.unread_count === 0) this.recent = this.recent.map((n) => (n.read ? n : { ...n, read: true }));
      else this.stale = true;
    });
    live.on('desktop', (m) => showBrowserNotification(m));
  }

  /** Reads the newest notifications when the panel opens, unless what is shown is current. */
  async loadRecent(force = false): Promise<void> {
    if (!force && !this.stale && this.recentLoaded) return;
    this.loadingRecent = true;
    const page = await loadNotifications({ limit: BELL_SIZE }, { quiet: this.recentLoaded });
    this.loadingRecent = false;
    if (!page) return;
    this.stale = false;
    this.recent = page.items;
    this.unread = page.unread_count;
    this.recentLoaded = true;
  }

  async markRead(notification: InboxItem): Promise<boolean> {
    if (notification.read) return true;
    const result = await markNotificationRead(notification);
    if (!result) return false;
    this.unread = result.unread_count;
    this.recent = this.recent.map((n) => (n.id === notification.id ? { ...n, read: true } : n));
    return true;
  }

  async markAllRead(): Promise<boolean> {
    const result = await markAllNotificationsRead();
    if (!result) return false;
    this.unread = result.unread_count;
    this.recent = this.recent.map((n) => (n.read ? n : { ...n, read: true }));
    return true;
  }

  /** Forgets everything on sign-out. */
  reset(): void {
    this.unread = 0;
    this.recent = [];
    this.recentLoaded = false;
    this.stale = true;
  }
}

export const notificationsState = new NotificationsState(liveEvents);

/**
 * Where a notification leads: maintenance events to the Maintenance page, applies to their
 * operation, agent events to the agent, operator and secret changes to those pages.
 */
export function notificationHref(n: InboxItem): string {
  if (n.kind.startsWith('maintenance.')) return routeHref('/maintenance');
  if (n.operation_id) return routeHref('/operations', { operation: n.operation_id });
  if (n.node_id) {
    const tab: RouteQuery = n.kind.startsWith('drift.') ? { tab: 'drift' } : {};
    return routeHref(`/agents/${encodeURIComponent(n.node_id)}`, tab);
  }
  if (n.kind.startsWith('operator.')) return routeHref('/operators');
  if (n.kind === 'secret.changed') return routeHref('/secrets');
  return routeHref('/notifications');
}

/** Whether this browser can show system notifications (not inside the desktop app, which shows its own). */
export function browserNotificationsSupported(): boolean {
  return !desktopBridge() && 'Notification' in window;
}

/**
 * A `desktop` channel's message as a system notification, when the operator allowed them
 * in this browser. The desktop app shows its own native one, so it is skipped there.
 */
function showBrowserNotification(m: LiveEventMap['desktop']): void {
  if (!browserNotificationsSupported() || window.Notification.permission !== 'granted') return;
  try {
    new window.Notification(m.title, { body: m.body, tag: `corral-${m.kind}-${m.title}` });
  } catch {
    // Some browsers only allow notifications from a service worker; the inbox still has it.
  }
}
