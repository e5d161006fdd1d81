// Secret values are replaced by ******** wherever they could leave the place that needs
// them: diffs, captured output, messages, observed state, logs. Used by the agent before it
// sends anything back and again by the orchestrator before it stores anything.
import { SECRET_MASK } from './protocol.js';

/** Longest values first, so a secret that contains another is masked whole. */
function ordered(secrets: readonly string[]): string[] {
  return [...new Set(secrets.filter((s) => s.length > 0))].sort((a, b) => b.length - a.length);
}

export function maskText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of ordered(secrets)) if (out.includes(s)) out = out.split(s).join(SECRET_MASK);
  return out;
}

/** A deep copy of a JSON-like value with every string (and object key) masked. */
export function maskDeep<T>(value: T, secrets: readonly string[]): T {
  const list = ordered(secrets);
  if (list.length === 0) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return maskText(v, list);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [maskText(k, list), walk(x)]));
    return v;
  };
  return walk(value) as T;
}
