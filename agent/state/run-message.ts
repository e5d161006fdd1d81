// The shape of a state_run from the orchestrator, checked field by field. Property values
// are only checked to be JSON scalars, lists of strings or string maps: what they mean is
// each provider's business, and a wrong one fails that resource, not the agent.
import { RESOURCE_TYPES, type PropertyValue, type ResourceType } from '../../common/modules/index.js';
import { isSessionId, STATE_RUN_MODES, type StateResource, type StateRunMessage, type StateRunMode } from '../../common/protocol.js';

export type Checked<T> = { ok: true; message: T } | { ok: false; reason: string };

const MAX_RESOURCES_PER_RUN = 100_000;
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isStringList(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

function isPropertyValue(v: unknown): v is PropertyValue {
  if (typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) return true;
  if (isStringList(v)) return true;
  return isRecord(v) && Object.values(v).every((x) => typeof x === 'string');
}

function checkResource(v: unknown, index: number): Checked<StateResource> {
  const at = `resources[${index}]`;
  if (!isRecord(v)) return { ok: false, reason: `${at} is not an object` };
  if (typeof v.module !== 'string' || !NAME.test(v.module)) return { ok: false, reason: `${at}.module is not a module name` };
  if (typeof v.id !== 'string' || !NAME.test(v.id)) return { ok: false, reason: `${at}.id is not a resource id` };
  if (typeof v.type !== 'string' || !(RESOURCE_TYPES as readonly string[]).includes(v.type)) return { ok: false, reason: `${at}.type is not a resource type` };
  if (!isRecord(v.properties) || !Object.values(v.properties).every(isPropertyValue)) return { ok: false, reason: `${at}.properties must map names to strings, numbers, booleans, string lists or string maps` };
  if (!isStringList(v.requires) || !isStringList(v.notify)) return { ok: false, reason: `${at}.requires and .notify must be lists of ids` };
  return {
    ok: true,
    message: { module: v.module, id: v.id, type: v.type as ResourceType, properties: v.properties as Record<string, PropertyValue>, requires: v.requires, notify: v.notify },
  };
}

export function checkStateRun(m: Record<string, unknown>): Checked<StateRunMessage> {
  if (!isSessionId(m.run_id)) return { ok: false, reason: 'state_run without a run_id UUID' };
  if (typeof m.mode !== 'string' || !(STATE_RUN_MODES as readonly string[]).includes(m.mode)) return { ok: false, reason: 'state_run with an unknown mode' };
  if (!Array.isArray(m.resources) || m.resources.length > MAX_RESOURCES_PER_RUN) return { ok: false, reason: 'state_run without a resources list' };
  if (!isStringList(m.mask)) return { ok: false, reason: 'state_run without a mask list' };
  if (m.expect_plan !== undefined && (typeof m.expect_plan !== 'string' || !/^[0-9a-f]{64}$/.test(m.expect_plan))) return { ok: false, reason: 'state_run with an expect_plan that is not a SHA-256 hex' };
  const resources: StateResource[] = [];
  for (let i = 0; i < m.resources.length; i++) {
    const r = checkResource(m.resources[i], i);
    if (!r.ok) return r;
    resources.push(r.message);
  }
  return {
    ok: true,
    message: {
      type: 'state_run',
      run_id: m.run_id,
      mode: m.mode as StateRunMode,
      resources,
      mask: m.mask,
      ...(m.expect_plan !== undefined ? { expect_plan: m.expect_plan as string } : {}),
    },
  };
}
