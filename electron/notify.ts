// Native notifications: the `desktop` notification channel (through the orchestrator's desktopNotifier) and the shell's own notices.
import { Notification } from 'electron';

export interface DesktopNotice {
  title: string;
  body: string;
  /** Critical notices stay until dismissed where the platform allows. */
  urgent?: boolean;
}

/** Shows a native notification; false when the platform has none. */
export function notify(notice: DesktopNotice, onClick?: () => void): boolean {
  if (!Notification.isSupported()) return false;
  const n = new Notification({ title: notice.title, body: notice.body, urgency: notice.urgent ? 'critical' : 'normal' });
  if (onClick) n.on('click', onClick);
  n.show();
  return true;
}
