import type { Notification, NotificationList, NotificationQuery, ReadResult } from '../api/client.js';
import { ApiError } from '../api/errors.js';
import { api } from '../api/index.js';
import { handleError } from '../utils/handle-error.js';

export interface LoadOptions {
  /** A background refresh: failures other than an ended session are not announced. */
  quiet?: boolean;
}

function report(err: unknown, context: string, quiet: boolean | undefined): void {
  if (quiet && !(err instanceof ApiError && err.status === 401)) return;
  handleError(err, context);
}

export async function loadNotifications(query: NotificationQuery, options: LoadOptions = {}): Promise<NotificationList | undefined> {
  try {
    return await api.listNotifications(query);
  } catch (err) {
    report(err, 'Loading notifications', options.quiet);
    return undefined;
  }
}

export async function markNotificationRead(notification: Notification): Promise<ReadResult | undefined> {
  try {
    return await api.markNotificationRead(notification.id);
  } catch (err) {
    handleError(err, 'Marking the notification read');
    return undefined;
  }
}

export async function markAllNotificationsRead(): Promise<ReadResult | undefined> {
  try {
    return await api.markAllNotificationsRead();
  } catch (err) {
    handleError(err, 'Marking all notifications read');
    return undefined;
  }
}
