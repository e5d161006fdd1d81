// Pure rules about a finished run: the counts, the operation's status, and whether each
// change was intentional (the desired state moved) or corrective (the machine had drifted).
import { stableJson } from '../../common/node/plan-fingerprint.js';
import type { StateResourceResult } from '../../common/protocol.js';
import type { ChangeKind, OperationCounts, OperationKind, OperationStatus } from '../../common/schemas/state.js';
import type { ExpandedResource } from './template-expansion.js';

export function countResults(results: readonly { status: string }[]): OperationCounts {
  const c: OperationCounts = { total: results.length, unchanged: 0, changed: 0, would_change: 0, failed: 0, would_fail: 0, skipped: 0 };
  for (const r of results) if (r.status in c && r.status !== 'total') c[r.status as Exclude<keyof OperationCounts, 'total'>]++;
  return c;
}

/**
 * succeeded: nothing failed (or would fail); partial: some did and others went through;
 * failed: every resource failed or was skipped (an empty module set succeeds).
 */
export function finalStatus(kind: OperationKind, c: OperationCounts): OperationStatus {
  const bad = kind === 'plan' ? c.would_fail : c.failed + c.skipped;
  if (bad === 0) return 'succeeded';
  return bad === c.total ? 'failed' : 'partial';
}

const key = (module: string, id: string) => `${module}/${id}`;

/**
 * A changed resource is corrective when the last successful apply had it with the same
 * expanded properties and the same secret versions: the modules asked for nothing new, so
 * the machine must have moved. Anything else (new resource, new properties, rotated
 * secret, no baseline yet) is intentional. A notify re-run takes the kind of its cause.
 */
export function classifyChanges(
  results: StateResourceResult[],
  now: { resources: readonly ExpandedResource[]; secretVersions: Record<string, number> },
  baseline: { resources: readonly ExpandedResource[]; secretVersions: Record<string, number> } | undefined,
): (ChangeKind | null)[] {
  const before = new Map((baseline?.resources ?? []).map((r) => [key(r.module, r.id), r]));
  const current = new Map(now.resources.map((r) => [key(r.module, r.id), r]));
  const kinds = new Map<string, ChangeKind | null>();
  const own = (r: StateResourceResult): ChangeKind | null => {
    if (r.status !== 'changed') return null;
    const k = key(r.module, r.resource_id);
    const was = before.get(k);
    const is = current.get(k);
    if (!baseline || !was || !is) return 'intentional';
    if (stableJson(was.properties) !== stableJson(is.properties)) return 'intentional';
    if (is.secrets.some((s) => baseline.secretVersions[s] !== now.secretVersions[s])) return 'intentional';
    return 'corrective';
  };
  for (const r of results) kinds.set(key(r.module, r.resource_id), own(r));
  return results.map((r) => {
    const mine = kinds.get(key(r.module, r.resource_id)) ?? null;
    if (mine === null || !r.notified_by?.length) return mine;
    const causes = r.notified_by.map((n) => kinds.get(n.includes('/') ? n : key(r.module, n)));
    return causes.includes('intentional') ? 'intentional' : mine;
  });
}
