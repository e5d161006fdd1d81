import type { OperationKind } from '../../../../common/schemas/state.js';
import type { Assignment, AssignmentCreate, AssignmentRunRequest, BatchSummary } from '../api/client.js';
import { ApiError } from '../api/errors.js';
import { api } from '../api/index.js';
import { confirmAction } from '../state/confirm.svelte.js';
import type { FormErrors } from '../state/form-errors.svelte.js';
import { notices } from '../state/notices.svelte.js';
import { handleError } from '../utils/handle-error.js';

/** Every assignment, following next_cursor. */
export async function loadAssignments(): Promise<Assignment[] | undefined> {
  try {
    const items: Assignment[] = [];
    let cursor: string | undefined;
    do {
      const page = await api.listAssignments({ limit: 1000, cursor });
      items.push(...page.items);
      cursor = page.next_cursor ?? undefined;
    } while (cursor && items.length < 10_000);
    return items;
  } catch (err) {
    handleError(err, 'Loading assignments');
    return undefined;
  }
}

/** One assignment; null when there is none by that name. */
export async function loadAssignment(name: string): Promise<Assignment | null | undefined> {
  try {
    return await api.getAssignment(name);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    handleError(err, `Loading assignment ${name}`);
    return undefined;
  }
}

export async function createAssignment(request: AssignmentCreate, form: FormErrors): Promise<Assignment | undefined> {
  try {
    const created = await api.createAssignment(request);
    form.clear();
    notices.success(`Assignment ${created.name} created`, `It matches ${created.matching_agents} agent${created.matching_agents === 1 ? '' : 's'} now. Plan it to see what would change.`);
    return created;
  } catch (err) {
    handleError(err, 'Creating the assignment', form);
    return undefined;
  }
}

export async function deleteAssignment(assignment: Assignment): Promise<boolean> {
  const ok = await confirmAction({
    title: `Delete assignment ${assignment.name}?`,
    message: `Its modules are no longer bound to ${assignment.selector}. Machines keep what was applied, and past operations stay in the history.`,
    confirmLabel: 'Delete assignment',
    danger: true,
  });
  if (!ok) return false;
  try {
    await api.deleteAssignment(assignment.name);
    notices.success(`Assignment ${assignment.name} deleted`);
    return true;
  } catch (err) {
    handleError(err, `Deleting ${assignment.name}`);
    return false;
  }
}

/** Plans or applies an assignment on every agent it matches; the batch is then polled for progress. */
export async function runAssignment(kind: OperationKind, name: string, request: AssignmentRunRequest, form?: FormErrors): Promise<BatchSummary | undefined> {
  try {
    const batch = kind === 'plan' ? await api.planAssignment(name, request) : await api.applyAssignment(name, request);
    form?.clear();
    return batch;
  } catch (err) {
    handleError(err, `${kind === 'plan' ? 'Planning' : 'Applying'} ${name}`, form);
    return undefined;
  }
}

export async function loadBatch(batchId: string, options: { quiet?: boolean } = {}): Promise<BatchSummary | undefined> {
  try {
    return await api.getBatch(batchId);
  } catch (err) {
    if (!options.quiet || (err instanceof ApiError && err.status === 401)) handleError(err, `Loading batch ${batchId}`);
    return undefined;
  }
}

export interface SelectorMatch {
  /** Accepted agents matching, counted up to `cap`. */
  count: number;
  /** More than `cap` matched. */
  more: boolean;
  names: string[];
}

/** Error text of a refused selector (400), for the inline message; other failures go through handleError. */
export type SelectorPreview = { ok: true; match: SelectorMatch } | { ok: false; error?: string };

/** Which accepted agents a selector matches now, for the live preview under the selector box. */
export async function previewSelector(selector: string, cap = 1000): Promise<SelectorPreview> {
  try {
    const page = await api.listAgents({ selector, status: 'accepted', limit: cap });
    return { ok: true, match: { count: page.items.length, more: page.next_cursor !== null, names: page.items.map((a) => a.node_id) } };
  } catch (err) {
    if (err instanceof ApiError && err.status === 400) return { ok: false, error: err.problem.detail ?? err.problem.title };
    handleError(err, 'Checking which agents the selector matches');
    return { ok: false };
  }
}
