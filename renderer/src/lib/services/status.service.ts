import type { StatusResponse } from '../api/client.js';
import { api } from '../api/index.js';
import { handleError } from '../utils/handle-error.js';

export async function loadStatus(quiet = false): Promise<StatusResponse | undefined> {
  try {
    return await api.status();
  } catch (err) {
    if (!quiet) handleError(err, 'Reading the orchestrator status');
    return undefined;
  }
}
