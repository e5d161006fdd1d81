// Runs the orchestrator's state runs (apply, plan, drift check) one at a time, in arrival
// order, and reports each resource's result followed by state_done. Everything sent back
// is masked with the run's secret values first: the values are only ever written where a
// resource puts them, never into a result, a log line or output.
import { maskDeep, maskText } from '../../common/mask.js';
import { planFingerprint } from '../../common/node/plan-fingerprint.js';
import type { StateDoneMessage, StateResourceResult, StateResultMessage, StateRunMessage } from '../../common/protocol.js';
import type { Logger } from '../logger.js';
import { ProviderContext } from '../providers/context.js';
import { apply, plan, type ApplyResult, type EngineResource, type PlanResult } from '../providers/engine.js';
import type { ProviderRegistry } from '../providers/registry.js';
import { TRUNCATED_MARKER } from '../providers/run-command.js';
import { summariseObserved } from './observe.js';

export interface StateSink {
  readonly canSend: boolean;
  send(message: StateResultMessage | StateDoneMessage): Promise<void>;
}

export interface ExecutorOptions {
  /** Prefix for every managed path (tests); "/" on a real machine. */
  root?: string;
  registry?: ProviderRegistry;
}

/** Resource ids are unique per module; the engine sees "module/id" so modules cannot collide. */
function qualified(module: string, id: string): string {
  return `${module}/${id}`;
}

function split(qid: string): { module: string; id: string } {
  const slash = qid.indexOf('/');
  return { module: qid.slice(0, slash), id: qid.slice(slash + 1) };
}

function engineResources(run: StateRunMessage): EngineResource[] {
  const modules = new Set(run.resources.map((r) => r.module));
  return run.resources.map((r) => ({
    id: qualified(r.module, r.id),
    label: modules.size === 1 ? r.id : qualified(r.module, r.id),
    type: r.type,
    properties: r.properties,
    requires: r.requires.map((d) => qualified(r.module, d)),
    notify: r.notify.map((d) => qualified(r.module, d)),
  }));
}

function toWire(r: PlanResult | ApplyResult, mask: readonly string[]): StateResourceResult {
  const { module, id } = split(r.resource_id);
  const out: StateResourceResult = { module, resource_id: id, type: r.type, status: r.status, duration_ms: r.duration_ms };
  if (r.diff) out.diff = maskDeep(r.diff, mask);
  if (r.message !== undefined) out.message = maskText(r.message, mask);
  if ('output' in r && r.output) {
    const truncated = r.output.stdout.includes(TRUNCATED_MARKER) || r.output.stderr.includes(TRUNCATED_MARKER);
    out.output = { stdout: maskText(r.output.stdout, mask), stderr: maskText(r.output.stderr, mask), exit_code: r.output.exit_code, truncated };
  }
  if ('notified_by' in r && r.notified_by) out.notified_by = r.notified_by.map((q) => (split(q).module === module ? split(q).id : q));
  if (r.observed !== undefined) out.observed = maskDeep(summariseObserved(r.observed), mask);
  return out;
}

export class StateExecutor {
  private queue: Promise<void> = Promise.resolve();
  private pending = 0;

  constructor(
    private readonly sink: StateSink,
    private readonly log: Logger,
    private readonly options: ExecutorOptions = {},
  ) {}

  /** Runs waiting or running. */
  get size(): number {
    return this.pending;
  }

  submit(run: StateRunMessage): void {
    this.pending++;
    this.queue = this.queue
      .then(() => this.execute(run))
      .catch((err: unknown) => this.log.error({ run_id: run.run_id, err: maskText(String(err), run.mask) }, 'state run failed'))
      .finally(() => this.pending--);
  }

  private async execute(run: StateRunMessage): Promise<void> {
    const started = Date.now();
    const log = this.log.child({ run_id: run.run_id, mode: run.mode });
    log.info({ resources: run.resources.length }, 'state run started');
    const ctx = new ProviderContext({ root: this.options.root, logger: log, dryRun: run.mode !== 'apply' });
    let results: StateResourceResult[];
    try {
      const resources = engineResources(run);
      if (run.mode === 'apply') {
        if (run.expect_plan !== undefined) {
          const replanned = (await plan(resources, ctx.forPlan(), this.options.registry)).map((r) => toWire(r, run.mask));
          if (planFingerprint(replanned) !== run.expect_plan) {
            const differs = replanned.filter((r) => r.status !== 'unchanged').length;
            return await this.done(run, { ok: false, code: 'plan_stale', message: `the machine changed since the plan was made (re-planned now: ${differs} resource(s) would change); nothing was applied`, results: 0 });
          }
        }
        results = (await apply(resources, ctx, this.options.registry)).map((r) => toWire(r, run.mask));
      } else {
        results = (await plan(resources, ctx, this.options.registry)).map((r) => toWire(r, run.mask));
      }
    } catch (err) {
      // Only a malformed run gets here (e.g. a requires cycle); resource failures are results.
      return await this.done(run, { ok: false, code: 'bad_run', message: maskText(err instanceof Error ? err.message : String(err), run.mask), results: 0 });
    }
    for (const result of results) await this.send({ type: 'state_result', run_id: run.run_id, result });
    const counts: Record<string, number> = {};
    for (const r of results) counts[r.status] = (counts[r.status] ?? 0) + 1;
    log.info({ counts, duration_ms: Date.now() - started }, 'state run finished');
    await this.done(run, { ok: true, results: results.length });
  }

  private done(run: StateRunMessage, outcome: Omit<StateDoneMessage, 'type' | 'run_id'>): Promise<void> {
    return this.send({ type: 'state_done', run_id: run.run_id, ...outcome });
  }

  /** A lost link loses the report; the orchestrator cancels runs of an agent that went away. */
  private async send(message: StateResultMessage | StateDoneMessage): Promise<void> {
    if (!this.sink.canSend) return void this.log.warn({ type: message.type, run_id: message.run_id }, 'state report not sent: the link is not accepted');
    await this.sink.send(message).catch((err: Error) => this.log.warn({ err: err.message, run_id: message.run_id }, 'could not send a state report'));
  }
}
