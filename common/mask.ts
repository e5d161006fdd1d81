// Secret values are replaced by ******** wherever they could leave the place that needs
// them: diffs, captured output, messages, observed state, logs. Used by the agent before it
// sends anything back and again by the orchestrator before it stores anything.
import { SECRET_MASK } from './protocol.js';
import type { ResourceDiff } from './schemas/state.js';

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

const HIDDEN = `${SECRET_MASK} (hidden: the resource uses secrets)`;

/**
 * For a resource that uses secrets, what was read from the machine may hold an older
 * value of a secret (before a rotation), which no mask list knows. So its machine side is
 * hidden: removed lines of a content diff, every `before` of a property change, and the
 * observed state's strings. The desired side (already masked) stays readable.
 */
export function redactMachineSide<T extends { diff?: ResourceDiff | null; observed?: unknown }>(result: T): T {
  const out = { ...result };
  if (result.diff) {
    const properties = Object.fromEntries(
      Object.entries(result.diff.properties).map(([k, change]) => [k, { before: typeof change.before === 'string' ? SECRET_MASK : change.before, after: change.after }]),
    );
    const content =
      result.diff.content === undefined
        ? undefined
        : result.diff.content
            .split('\n')
            .map((line) => (line.startsWith('-') && !line.startsWith('---') ? `-${SECRET_MASK}` : line))
            .join('\n');
    out.diff = { properties, ...(content !== undefined ? { content } : {}) };
  }
  if (result.observed !== undefined) {
    const walk = (v: unknown): unknown =>
      typeof v === 'string' ? HIDDEN : Array.isArray(v) ? v.map(walk) : v !== null && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)])) : v;
    out.observed = walk(result.observed);
  }
  return out;
}
