import { APPROVAL_TRANSITIONS } from '../../../../common/protocol.js';
import type { Agent, AgentAttributes, AgentListQuery, ApprovalStatus, Discovery } from '../api/client.js';
import { ApiError } from '../api/errors.js';
import { api } from '../api/index.js';
import { confirmAction } from '../state/confirm.svelte.js';
import type { FormErrors } from '../state/form-errors.svelte.js';
import { notices } from '../state/notices.svelte.js';
import { handleError } from '../utils/handle-error.js';

export function canBecome(from: ApprovalStatus, to: ApprovalStatus): boolean {
  return APPROVAL_TRANSITIONS[from].includes(to);
}

/** How many agents one fleet view reads at most; beyond that the list says it is cut. */
export const FLEET_MAX_AGENTS = 5000;
const PAGE = 1000;

export interface FleetPage {
  items: Agent[];
  /** More agents matched than FLEET_MAX_AGENTS. */
  truncated: boolean;
}

export interface LoadOptions {
  /** A background refresh: failures other than an ended session are not announced. */
  quiet?: boolean;
}

/** Reports a failure unless `quiet`; an ended session is always handled (it signs out). */
function report(err: unknown, context: string, form: FormErrors | undefined, quiet: boolean | undefined): void {
  if (quiet && !(err instanceof ApiError && err.status === 401)) return;
  handleError(err, context, form);
}

/** Every agent matching the query (following next_cursor), up to FLEET_MAX_AGENTS. */
export async function loadFleet(query: Omit<AgentListQuery, 'limit' | 'cursor'>, form?: FormErrors, options: LoadOptions = {}): Promise<FleetPage | undefined> {
  try {
    const items: Agent[] = [];
    let cursor: string | undefined;
    do {
      const page = await api.listAgents({ ...query, limit: PAGE, cursor });
      items.push(...page.items);
      cursor = page.next_cursor ?? undefined;
    } while (cursor && items.length < FLEET_MAX_AGENTS);
    form?.clear();
    return { items, truncated: cursor !== undefined };
  } catch (err) {
    report(err, 'Loading the fleet', form, options.quiet);
    return undefined;
  }
}

/** One agent's record; null when there is no such agent. */
export async function loadAgent(nodeId: string, options: LoadOptions = {}): Promise<Agent | null | undefined> {
  try {
    return await api.getAgent(nodeId);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    report(err, `Loading agent ${nodeId}`, undefined, options.quiet);
    return undefined;
  }
}

export async function loadAttributes(nodeId: string, options: LoadOptions = {}): Promise<AgentAttributes | undefined> {
  try {
    return await api.agentAttributes(nodeId);
  } catch (err) {
    report(err, `Reading the attributes of ${nodeId}`, undefined, options.quiet);
    return undefined;
  }
}

const VERB: Record<'accepted' | 'rejected', { ask: string; done: string; button: string }> = {
  accepted: { ask: 'Approve', done: 'approved', button: 'Approve' },
  rejected: { ask: 'Reject', done: 'rejected', button: 'Reject' },
};

function listNames(agents: Agent[], max = 4): string {
  const names = agents.slice(0, max).map((a) => a.node_id);
  return agents.length > max ? `${names.join(', ')} and ${agents.length - max} more` : names.join(', ');
}

/**
 * Approves or rejects agents after a confirmation; agents for which the change is not a
 * legal transition are skipped. Returns the agents as they are now, or undefined when
 * the operator cancelled.
 */
export async function changeStatus(agents: Agent[], status: 'accepted' | 'rejected'): Promise<Agent[] | undefined> {
  const eligible = agents.filter((a) => canBecome(a.status, status));
  if (eligible.length === 0) return [];
  const verb = VERB[status];
  const one = eligible.length === 1 ? eligible[0]! : undefined;
  const pending = eligible.filter((a) => a.status === 'pending');
  const message =
    status === 'accepted'
      ? one
        ? `${one.node_id}${one.attributes.hostname ? ` (${one.attributes.hostname})` : ''} joins the fleet and can be given work. Its key fingerprint is ${one.key_fingerprint}: compare it with the key_fingerprint in the agent's start log (or ssh-keygen -lf agent.pub in its state directory) before you approve.`
        : `${listNames(eligible)} join the fleet and can be given work.${pending.length ? " Compare each key fingerprint shown in the list with the one in its agent's start log before you approve." : ''}`
      : `${one ? one.node_id : listNames(eligible)} ${one ? 'gets' : 'get'} no work any more; an accepted agent's link closes at once. A rejected agent can be approved again later.`;
  const ok = await confirmAction({
    title: one ? `${verb.ask} ${one.node_id}?` : `${verb.ask} ${eligible.length} agents?`,
    message,
    confirmLabel: one ? verb.button : `${verb.button} ${eligible.length}`,
    danger: status === 'rejected',
  });
  if (!ok) return undefined;
  const changed: Agent[] = [];
  for (const agent of eligible) {
    try {
      changed.push(await api.setAgentStatus(agent.node_id, { status }));
    } catch (err) {
      handleError(err, `${status === 'accepted' ? 'Approving' : 'Rejecting'} ${agent.node_id}`);
    }
  }
  if (changed.length) {
    notices.success(
      changed.length === 1 ? `${changed[0]!.node_id} ${verb.done}` : `${changed.length} agents ${verb.done}`,
      status === 'accepted' ? 'Accepted agents send attributes and metrics and can be given work.' : undefined,
    );
  }
  return changed;
}

/** Deletes a rejected agent's record after a confirmation. */
export async function deleteAgent(agent: Agent): Promise<boolean> {
  const ok = await confirmAction({
    title: `Delete ${agent.node_id}?`,
    message: `The record of ${agent.node_id}, its tags and its metrics are removed. If the agent connects again it shows up as pending, with whatever key it then has.`,
    confirmLabel: 'Delete agent',
    danger: true,
  });
  if (!ok) return false;
  try {
    await api.deleteAgent(agent.node_id);
    notices.success(`${agent.node_id} deleted`);
    return true;
  } catch (err) {
    handleError(err, `Deleting ${agent.node_id}`);
    return false;
  }
}

export async function discoverAgents(waitMs: number, targets: string[], form: FormErrors): Promise<Discovery | undefined> {
  try {
    const result = await api.discover({ wait_ms: waitMs, ...(targets.length ? { targets } : {}) });
    form.clear();
    return result;
  } catch (err) {
    handleError(err, 'Discovering agents', form);
    return undefined;
  }
}
