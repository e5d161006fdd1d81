// The fleet summary of a batch: counts per status, and agents whose operations ended the
// same way grouped into one line, so "38 agents: 2 changed, 0 failed" is what one reads
// instead of 38 operations.
import type { BatchGroup, BatchSummary } from '../../common/schemas/assignments.js';
import { FINISHED_STATUSES, type OperationSummary, type ResourceResult } from '../../common/schemas/state.js';

const CHANGES = ['changed', 'would_change'];
const FAILURES = ['failed', 'would_fail'];

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export function groupOf(op: OperationSummary, results: readonly ResourceResult[]): Omit<BatchGroup, 'count' | 'node_ids'> {
  const changed = results.filter((r) => CHANGES.includes(r.status)).map((r) => `${r.module}/${r.resource_id}`);
  const failed = results.filter((r) => FAILURES.includes(r.status) || r.status === 'skipped').map((r) => `${r.module}/${r.resource_id}`);
  let label: string;
  if (op.status === 'queued' || op.status === 'running') label = op.status;
  else if (op.status === 'skipped' || op.status === 'cancelled') label = `${op.status}: ${op.message ?? 'no reason given'}`;
  else if (results.length === 0 && op.status === 'failed') label = `failed: ${op.message ?? 'the run failed'}`;
  else {
    const parts: string[] = [];
    const verb = op.kind === 'plan' ? 'would change' : 'changed';
    if (changed.length) parts.push(`${verb}: ${changed.join(', ')}`);
    if (failed.length) parts.push(`${op.kind === 'plan' ? 'would fail' : 'failed or skipped'}: ${failed.join(', ')}`);
    label = parts.length ? parts.join('; ') : 'all unchanged';
  }
  return { label, status: op.status, changed, failed };
}

export function summarise(
  batch: { batch_id: string; assignment: string; kind: 'apply' | 'plan'; created_at: string; created_by: string },
  operations: readonly { summary: OperationSummary; results: readonly ResourceResult[] }[],
): BatchSummary {
  const counts: Record<string, number> = {};
  const groups = new Map<string, BatchGroup>();
  let agentsChanged = 0;
  let agentsFailed = 0;
  for (const { summary, results } of operations) {
    counts[summary.status] = (counts[summary.status] ?? 0) + 1;
    const g = groupOf(summary, results);
    if (g.changed.length) agentsChanged++;
    if (summary.status === 'failed' || summary.status === 'partial' || g.failed.length) agentsFailed++;
    const key = `${g.status}\n${g.label}`;
    const existing = groups.get(key);
    if (existing) {
      existing.count++;
      existing.node_ids.push(summary.node_id);
    } else groups.set(key, { ...g, count: 1, node_ids: [summary.node_id] });
  }
  const total = operations.length;
  const done = operations.every((o) => FINISHED_STATUSES.includes(o.summary.status));
  const skipped = (counts.skipped ?? 0) + (counts.cancelled ?? 0);
  const pending = (counts.queued ?? 0) + (counts.running ?? 0);
  const parts = [`${agentsChanged} ${batch.kind === 'plan' ? 'would change' : 'changed'}`, `${agentsFailed} failed`];
  if (skipped) parts.push(`${skipped} skipped`);
  if (pending) parts.push(`${pending} still running`);
  return {
    batch_id: batch.batch_id,
    assignment: batch.assignment,
    kind: batch.kind,
    created_at: batch.created_at,
    created_by: batch.created_by,
    done,
    total,
    counts,
    agents_changed: agentsChanged,
    agents_failed: agentsFailed,
    headline: `${plural(total, 'agent')}: ${parts.join(', ')}`,
    groups: [...groups.values()].sort((a, b) => b.count - a.count || a.label.localeCompare(b.label)),
    operations: operations.map(({ summary }) => ({ operation_id: summary.operation_id, node_id: summary.node_id, status: summary.status, message: summary.message })),
  };
}
