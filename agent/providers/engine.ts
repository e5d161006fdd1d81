// plan() and apply() over a list of resources whose templates are already expanded.
// Order comes from `requires` (a stable topological sort: module order where requires allow).
// A failure skips everything that requires it, transitively; the rest goes on. `notify`
// refreshes each target once, after every resource ran, if anything notifying it changed.
// Plan calls read and diff only, with a dry-run context, so it cannot change the machine.
import type { ResourceType } from '../../common/modules/index.js';
import type { ProviderContext } from './context.js';
import { defaultRegistry, type ProviderRegistry } from './registry.js';
import { ConvergeError, type CommandOutput, type Props, type Provider, type ResourceDiff } from './types.js';

export interface EngineResource {
  id: string;
  type: ResourceType;
  properties: Props;
  requires?: string[];
  notify?: string[];
  /** How messages name the resource (the agent's ids are module-qualified; people know the plain id). */
  label?: string;
}

export type PlanStatus = 'unchanged' | 'would_change' | 'would_fail';
export type ApplyStatus = 'unchanged' | 'changed' | 'failed' | 'skipped';

export interface PlanResult {
  resource_id: string;
  type: ResourceType;
  status: PlanStatus;
  diff?: ResourceDiff;
  message?: string;
  duration_ms: number;
  /** The state read (what a drift check compares and believed state records). */
  observed?: unknown;
}

export interface ApplyResult {
  resource_id: string;
  type: ResourceType;
  status: ApplyStatus;
  diff?: ResourceDiff;
  message?: string;
  output?: CommandOutput;
  duration_ms: number;
  /** Set when a notify refreshed this resource: the ids that changed and asked for it. */
  notified_by?: string[];
  /** The state read after converging (before, when nothing changed). */
  observed?: unknown;
}

/** Stable topological order: each resource after what it requires, otherwise in the given order. */
export function dependencyOrder(resources: readonly EngineResource[]): EngineResource[] {
  const byId = new Map(resources.map((r) => [r.id, r]));
  if (byId.size !== resources.length) throw new Error('resource ids must be unique');
  const done = new Set<string>();
  const visiting = new Set<string>();
  const out: EngineResource[] = [];
  const visit = (r: EngineResource, chain: string[]): void => {
    if (done.has(r.id)) return;
    if (visiting.has(r.id)) throw new Error(`requires form a cycle: ${[...chain, r.id].join(' -> ')}`);
    visiting.add(r.id);
    for (const dep of r.requires ?? []) {
      const d = byId.get(dep);
      if (!d) throw new Error(`resource "${r.id}" requires unknown resource "${dep}"`);
      visit(d, [...chain, r.id]);
    }
    visiting.delete(r.id);
    done.add(r.id);
    out.push(r);
  };
  for (const r of resources) visit(r, []);
  return out;
}

/** Names ids in messages by their labels. */
function namer(resources: readonly EngineResource[]): (id: string) => string {
  const labels = new Map(resources.map((r) => [r.id, r.label ?? r.id]));
  return (id) => labels.get(id) ?? id;
}

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function providerFor(registry: ProviderRegistry, r: EngineResource): Provider {
  const p = registry.get(r.type);
  if (!p) throw new Error(`resource type "${r.type}" is not supported by this agent yet`);
  return p;
}

/** Who notifies whom: target id -> notifier ids, in order. */
function notifiers(resources: readonly EngineResource[]): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const r of resources) for (const t of r.notify ?? []) m.set(t, [...(m.get(t) ?? []), r.id]);
  return m;
}

export async function plan(resources: readonly EngineResource[], ctx: ProviderContext, registry: ProviderRegistry = defaultRegistry()): Promise<PlanResult[]> {
  const planCtx = ctx.dryRun ? ctx : ctx.forPlan();
  const name = namer(resources);
  const results = new Map<string, PlanResult>();
  for (const r of dependencyOrder(resources)) {
    const started = performance.now();
    const result: PlanResult = { resource_id: r.id, type: r.type, status: 'unchanged', duration_ms: 0 };
    const failedDep = (r.requires ?? []).find((d) => results.get(d)?.status === 'would_fail');
    if (failedDep !== undefined) {
      result.status = 'would_fail';
      result.message = `requires "${name(failedDep)}", which would fail`;
    } else {
      try {
        const provider = providerFor(registry, r);
        const current = await provider.read(r.properties, planCtx);
        result.observed = current;
        const d = provider.diff(r.properties, current);
        if (d.changed) {
          result.status = 'would_change';
          result.diff = d.diff;
        }
        if (d.message !== undefined) result.message = d.message;
      } catch (e) {
        result.status = 'would_fail';
        result.message = errorMessage(e);
      }
    }
    result.duration_ms = Math.round(performance.now() - started);
    results.set(r.id, result);
  }
  for (const [target, from] of notifiers(resources)) {
    const t = results.get(target);
    const changed = from.filter((id) => results.get(id)?.status === 'would_change');
    if (!t || changed.length === 0 || t.status === 'would_fail') continue;
    t.status = 'would_change';
    t.message = `${t.message !== undefined ? `${t.message}; ` : ''}would re-run (notified by ${changed.map(name).join(', ')})`;
  }
  return [...results.values()];
}

export async function apply(resources: readonly EngineResource[], ctx: ProviderContext, registry: ProviderRegistry = defaultRegistry()): Promise<ApplyResult[]> {
  if (ctx.dryRun) throw new Error('apply needs a context that may change the machine (this one is a dry run)');
  const ordered = dependencyOrder(resources);
  const name = namer(resources);
  const results = new Map<string, ApplyResult>();
  for (const r of ordered) {
    const started = performance.now();
    const result: ApplyResult = { resource_id: r.id, type: r.type, status: 'unchanged', duration_ms: 0 };
    const blocked = (r.requires ?? []).find((d) => {
      const s = results.get(d)?.status;
      return s === 'failed' || s === 'skipped';
    });
    if (blocked !== undefined) {
      result.status = 'skipped';
      result.message = `requires "${name(blocked)}", which ${results.get(blocked)?.status === 'failed' ? 'failed' : 'was skipped'}`;
    } else {
      try {
        const provider = providerFor(registry, r);
        const current = await provider.read(r.properties, ctx);
        result.observed = current;
        const d = provider.diff(r.properties, current);
        if (d.message !== undefined) result.message = d.message;
        if (d.changed) {
          result.diff = d.diff;
          const done = await provider.converge(r.properties, current, ctx);
          result.status = 'changed';
          if (done.message !== undefined) result.message = done.message;
          if (done.output) result.output = done.output;
          // What the machine looks like now; a failed re-read keeps the pre-change state.
          result.observed = await provider.read(r.properties, ctx.forPlan()).catch(() => current);
        }
      } catch (e) {
        result.status = 'failed';
        result.message = errorMessage(e);
        if (e instanceof ConvergeError && e.output) result.output = e.output;
      }
    }
    result.duration_ms = Math.round(performance.now() - started);
    ctx.logger.debug({ resource: r.id, type: r.type, status: result.status }, 'resource applied');
    results.set(r.id, result);
  }

  // Notified refreshes, once per target, in dependency order.
  const asked = notifiers(resources);
  for (const r of ordered) {
    const from = (asked.get(r.id) ?? []).filter((id) => results.get(id)?.status === 'changed');
    const t = results.get(r.id)!;
    if (from.length === 0) continue;
    if (t.status === 'failed' || t.status === 'skipped') {
      t.message = `${t.message ?? ''}; not re-run for ${from.map(name).join(', ')}`;
      continue;
    }
    const started = performance.now();
    t.notified_by = from;
    try {
      const provider = providerFor(registry, r);
      if (!provider.refresh) throw new Error(`a ${r.type} cannot be notified`);
      const done = await provider.refresh(r.properties, ctx);
      t.message = `re-run (notified by ${from.map(name).join(', ')})`;
      t.output = joinOutput(t.output, done.output);
      t.status = 'changed';
    } catch (e) {
      t.status = 'failed';
      t.message = `re-run (notified by ${from.map(name).join(', ')}) failed: ${errorMessage(e)}`;
      if (e instanceof ConvergeError) t.output = joinOutput(t.output, e.output);
    }
    t.duration_ms += Math.round(performance.now() - started);
  }
  return [...results.values()];
}

function joinOutput(first: CommandOutput | undefined, second: CommandOutput | undefined): CommandOutput | undefined {
  if (!first) return second;
  if (!second) return first;
  const sep = '\n--- re-run (notify) ---\n';
  return { stdout: first.stdout + sep + second.stdout, stderr: first.stderr + sep + second.stderr, exit_code: second.exit_code };
}
