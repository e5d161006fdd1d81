// What a maintenance window held back, said once when it ends instead of a storm of
// alerts: who went offline, who came back, who is still down, what drifted or failed.
import type { FleetEvent } from '../../common/schemas/events.js';
import type { MaintenanceWindow } from '../../common/schemas/maintenance.js';

function names(ids: Iterable<string>, max = 20): string {
  const list = [...new Set(ids)].sort();
  if (!list.length) return '';
  return list.length > max ? `${list.slice(0, max).join(', ')} and ${list.length - max} more` : list.join(', ');
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export interface Digest {
  title: string;
  body: string;
}

/**
 * `held` oldest first. `isOnline` is asked about agents that went offline and did not
 * come back inside the window: they are reported as still offline.
 */
export function summariseHeld(window: Pick<MaintenanceWindow, 'name' | 'selector' | 'starts_at' | 'ends_at' | 'reason'>, held: FleetEvent[], isOnline: (nodeId: string) => boolean): Digest {
  const offline = new Set<string>();
  const recovered = new Set<string>();
  const byKind = new Map<string, Set<string>>();
  const other = new Map<string, number>();
  for (const e of held) {
    const node = e.node_id ?? '';
    if (e.kind === 'agent.offline') {
      offline.add(node);
      recovered.delete(node);
    } else if (e.kind === 'agent.online') {
      recovered.add(node); // also when its offline was announced before the window: it came back in it
    } else if (['drift.detected', 'drift.resolved', 'apply.failed', 'apply.succeeded', 'agent.key_mismatch'].includes(e.kind)) {
      if (!byKind.has(e.kind)) byKind.set(e.kind, new Set());
      byKind.get(e.kind)!.add(node);
    } else {
      other.set(e.kind, (other.get(e.kind) ?? 0) + 1);
    }
  }
  const stillOffline = [...offline].filter((n) => !recovered.has(n) && !isOnline(n));
  const lines = [`Maintenance "${window.name}" (${window.selector}) ran ${window.starts_at} to ${window.ends_at}.`];
  if (window.reason) lines.push(`Reason: ${window.reason}`);
  if (!held.length) lines.push('Nothing was held back.');
  else {
    lines.push(`${plural(held.length, 'notification')} held back while it ran:`);
    const add = (label: string, ids: Iterable<string>) => {
      const text = names(ids);
      if (text) lines.push(`- ${label}: ${text}`);
    };
    add('went offline', offline);
    add('back online', recovered);
    add('still offline', stillOffline);
    add('drift detected', byKind.get('drift.detected') ?? []);
    add('drift resolved', byKind.get('drift.resolved') ?? []);
    add('apply failed', byKind.get('apply.failed') ?? []);
    add('apply succeeded', byKind.get('apply.succeeded') ?? []);
    add('key mismatch', byKind.get('agent.key_mismatch') ?? []);
    for (const [kind, n] of [...other].sort()) lines.push(`- ${kind}: ${n}`);
  }
  const headline = stillOffline.length ? `, ${plural(stillOffline.length, 'agent')} still offline` : '';
  return { title: `Maintenance ended: ${window.name} (${plural(held.length, 'held notification')}${headline})`, body: lines.join('\n') };
}
