// Desktop: a native notification from the Electron shell and/or the Notification API in
// every browser that has Corral open (pushed over the live event stream).
import type { DesktopConfig } from '../../../../common/schemas/channels.js';
import type { ChannelMessage, ChannelProvider, DesktopNotice } from '../provider.js';

export function desktopNotice(message: ChannelMessage): DesktopNotice {
  // A notification shows the title already; the default text starts with it, so drop the repeat.
  const body = message.text.startsWith(`${message.title}\n`) ? message.text.slice(message.title.length + 1) : message.text;
  return { title: message.title, body, severity: message.severity, kind: message.events[0]?.kind ?? 'test' };
}

const plural = (n: number) => `${n} browser window${n === 1 ? '' : 's'}`;

export const desktopProvider: ChannelProvider<'desktop'> = {
  type: 'desktop',
  async send(message, _config: DesktopConfig, context) {
    const started = performance.now();
    const notice = desktopNotice(message);
    const problems: string[] = [];
    let native = false;
    let browsers = 0;
    // One outlet failing must not keep the notice from the other.
    try {
      native = context.desktop.native?.(notice) === true;
    } catch (err) {
      problems.push(`native notification failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    try {
      browsers = context.desktop.browsers(notice);
    } catch (err) {
      problems.push(`browser push failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    const duration_ms = Math.round(performance.now() - started);
    const suffix = problems.length > 0 ? ` (${problems.join('; ')})` : '';
    if (native || browsers > 0) {
      const where = native ? (browsers > 0 ? `shown natively and in ${plural(browsers)}` : 'shown natively') : `shown in ${plural(browsers)}`;
      return { ok: true, detail: where + suffix, status_code: null, duration_ms };
    }
    // Nobody to show it to now; a retry later would show a stale notice, so the queue should not retry.
    return { ok: false, detail: `no desktop app and no open browser window to show it in${suffix}`, status_code: null, duration_ms, retry: false };
  },
};
