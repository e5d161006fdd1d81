// What the agent reports of a resource's state. Provider state can hold whole file
// contents; believed state and drift only need to know whether they changed, so long
// strings travel as their hash and length.
import { createHash } from 'node:crypto';

const INLINE_LIMIT = 4096;

export function summariseObserved(value: unknown): unknown {
  if (typeof value === 'string') {
    if (value.length <= INLINE_LIMIT) return value;
    return `sha256:${createHash('sha256').update(value, 'utf8').digest('hex')} (${Buffer.byteLength(value, 'utf8')} bytes)`;
  }
  if (Array.isArray(value)) return value.map(summariseObserved);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && typeof v !== 'function').map(([k, v]) => [k, summariseObserved(v)]));
  }
  if (typeof value === 'bigint') return value.toString();
  return value;
}
