import type { List } from '../../../../common/schemas/shared.js';
import type { DriftRecord, DriftSummary } from '../api/client.js';
import { ApiError } from '../api/errors.js';
import { api } from '../api/index.js';
import { notices } from '../state/notices.svelte.js';
import { handleError } from '../utils/handle-error.js';

export const DRIFT_PAGE_SIZE = 20;

/** Reports a failure unless `quiet`; an ended session is always handled (it signs out). */
function report(err: unknown, context: string, quiet: boolean | undefined): void {
  if (quiet && !(err instanceof ApiError && err.status === 401)) return;
  handleError(err, context);
}

/** The agent's newest drift record; null when it was never checked (404 no-drift-record). */
export async function loadLatestDrift(nodeId: string, options: { quiet?: boolean } = {}): Promise<DriftRecord | null | undefined> {
  try {
    return await api.latestDrift(nodeId);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    report(err, `Loading the latest drift check of ${nodeId}`, options.quiet);
    return undefined;
  }
}

export async function loadDrift(driftId: string, options: { quiet?: boolean } = {}): Promise<DriftRecord | undefined> {
  try {
    return await api.getDrift(driftId);
  } catch (err) {
    report(err, `Loading drift check ${driftId}`, options.quiet);
    return undefined;
  }
}

export async function loadDriftHistory(nodeId: string, cursor?: string): Promise<List<DriftSummary> | undefined> {
  try {
    return await api.listDrift(nodeId, { limit: DRIFT_PAGE_SIZE, cursor });
  } catch (err) {
    handleError(err, `Loading the drift checks of ${nodeId}`);
    return undefined;
  }
}

/** Asks the agent to compare the machine with its baseline; 409 no-baseline and agent_offline show as they come. */
export async function startDriftCheck(nodeId: string): Promise<DriftSummary | undefined> {
  try {
    const started = await api.checkDrift(nodeId);
    notices.info(`Drift check started on ${nodeId}`, 'The agent compares the machine with the last successful apply.');
    return started;
  } catch (err) {
    handleError(err, `Checking ${nodeId} for drift`);
    return undefined;
  }
}
