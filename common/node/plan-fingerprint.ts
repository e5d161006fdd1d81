// What a plan showed, as one hash: per resource its status and diff (already masked). The
// orchestrator stores it with the plan; an apply given that plan re-plans on the agent
// and refuses to run if the fingerprint differs (plan_stale). Durations and messages are
// left out: they change between runs without the plan meaning anything different.
import { createHash } from 'node:crypto';

export interface FingerprintInput {
  module: string;
  resource_id: string;
  status: string;
  diff?: unknown;
}

/** JSON with object keys sorted, so equal values hash equally whatever their key order. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

export function planFingerprint(results: readonly FingerprintInput[]): string {
  const h = createHash('sha256');
  for (const r of results) h.update(stableJson([r.module, r.resource_id, r.status, r.diff ?? null])).update('\n');
  return h.digest('hex');
}
