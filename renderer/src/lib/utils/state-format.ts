import type { OperationCounts } from '../../../../common/schemas/state.js';
import type { OperationSummary } from '../api/client.js';
import { formatDuration } from './format.js';

/** A property value from a diff or a drift record as one readable line: strings as they are, absent as —. */
export function formatValue(value: unknown): string {
  if (value === undefined || value === null) return '—';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

/** "2 changed · 1 failed", "3 would change", "all 12 unchanged": what an operation did or would do. */
export function describeCounts(counts: OperationCounts): string {
  const parts: string[] = [];
  if (counts.would_change) parts.push(`${counts.would_change} would change`);
  if (counts.changed) parts.push(`${counts.changed} changed`);
  if (counts.would_fail) parts.push(`${counts.would_fail} would fail`);
  if (counts.failed) parts.push(`${counts.failed} failed`);
  if (counts.skipped) parts.push(`${counts.skipped} skipped`);
  if (parts.length === 0) return counts.total ? `all ${counts.total} unchanged` : 'no resources';
  if (counts.unchanged) parts.push(`${counts.unchanged} unchanged`);
  return parts.join(' · ');
}

/** How long an operation ran (or has been running), "—" before it started. */
export function operationDuration(op: Pick<OperationSummary, 'started_at' | 'finished_at'>, now = Date.now()): string {
  if (!op.started_at) return '—';
  const end = op.finished_at ? Date.parse(op.finished_at) : now;
  return formatDuration(Math.max(0, Math.round((end - Date.parse(op.started_at)) / 1000)));
}

/** 1234 ms -> "1.2 s", 80 -> "80 ms". */
export function formatMs(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}

/** A resource's key in results, drift items and outputs: module/resource_id. */
export function resourceKey(r: { module: string; resource_id: string }): string {
  return `${r.module}/${r.resource_id}`;
}
