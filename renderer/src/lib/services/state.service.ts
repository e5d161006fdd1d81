import type { OperationKind } from '../../../../common/schemas/state.js';
import type { List } from '../../../../common/schemas/shared.js';
import type { AgentOperationsQuery, BelievedState, Operation, OperationOutput, OperationsQuery, OperationSummary, StateRunRequest } from '../api/client.js';
import { ApiError } from '../api/errors.js';
import { api } from '../api/index.js';
import { notices } from '../state/notices.svelte.js';
import { handleError } from '../utils/handle-error.js';

export const OPERATIONS_PAGE_SIZE = 50;

export interface LoadOptions {
  /** A background refresh: failures other than an ended session are not announced. */
  quiet?: boolean;
}

/** Reports a failure unless `quiet`; an ended session is always handled (it signs out). */
function report(err: unknown, context: string, quiet: boolean | undefined): void {
  if (quiet && !(err instanceof ApiError && err.status === 401)) return;
  handleError(err, context);
}

/**
 * The orchestrator's codes for "the plan no longer matches". The schema's own comment
 * spells it plan_stale while problem codes elsewhere are kebab-case: both are accepted.
 */
export function isPlanStale(err: unknown): err is ApiError {
  return err instanceof ApiError && err.status === 409 && (err.code === 'plan_stale' || err.code === 'plan-stale');
}

/** Operations across the fleet (query.node_id) or of one agent (nodeId), most recent first. */
export async function loadOperations(
  query: OperationsQuery,
  nodeId?: string,
  options: LoadOptions = {},
): Promise<List<OperationSummary> | undefined> {
  try {
    const q = { limit: OPERATIONS_PAGE_SIZE, ...query };
    if (nodeId === undefined) return await api.listOperations(q);
    // The agent's own list takes no node, assignment or batch filter.
    const { node_id: _node, assignment: _assignment, batch_id: _batch, ...agentQuery } = q;
    return await api.listAgentOperations(nodeId, agentQuery satisfies AgentOperationsQuery);
  } catch (err) {
    report(err, nodeId ? `Loading the operations of ${nodeId}` : 'Loading operations', options.quiet);
    return undefined;
  }
}

export async function loadOperation(operationId: string, options: LoadOptions = {}): Promise<Operation | undefined> {
  try {
    return await api.getOperation(operationId);
  } catch (err) {
    report(err, `Loading operation ${operationId}`, options.quiet);
    return undefined;
  }
}

export async function loadOperationOutput(nodeId: string, operationId: string): Promise<OperationOutput | undefined> {
  try {
    return await api.operationOutput(nodeId, operationId);
  } catch (err) {
    handleError(err, `Loading the output of operation ${operationId}`);
    return undefined;
  }
}

/** What the last successful apply left on the agent; null when nothing was ever applied there. */
export async function loadBelievedState(nodeId: string, options: LoadOptions = {}): Promise<BelievedState | null | undefined> {
  try {
    return await api.believedState(nodeId);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    report(err, `Loading the state of ${nodeId}`, options.quiet);
    return undefined;
  }
}

export type RunOutcome = { ok: true; operation: OperationSummary } | { ok: false; stale?: string };

/**
 * Starts a plan or an apply on one agent. A 409 plan_stale comes back as `stale` (the
 * orchestrator's detail says what changed) so the page can show it beside the plan.
 */
export async function runOnAgent(kind: OperationKind, nodeId: string, request: StateRunRequest): Promise<RunOutcome> {
  try {
    const operation = kind === 'plan' ? await api.planOnAgent(nodeId, { modules: request.modules, ...(request.vars ? { vars: request.vars } : {}) }) : await api.applyOnAgent(nodeId, request);
    notices.success(
      kind === 'plan' ? `Plan started on ${nodeId}` : `Apply started on ${nodeId}`,
      kind === 'plan' ? 'Nothing is changed: the agent reports what an apply would do.' : `Modules ${request.modules.join(', ')}, in that order.`,
    );
    return { ok: true, operation };
  } catch (err) {
    handleError(err, `${kind === 'plan' ? 'Planning' : 'Applying'} ${request.modules.join(', ')} on ${nodeId}`);
    if (isPlanStale(err)) return { ok: false, stale: err.problem.detail ?? err.problem.title };
    return { ok: false };
  }
}
