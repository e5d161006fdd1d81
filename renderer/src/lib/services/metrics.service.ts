import type { MetricsHistory } from '../api/client.js';
import { ApiError } from '../api/errors.js';
import { api } from '../api/index.js';
import { handleError } from '../utils/handle-error.js';

/** The time ranges the metrics tab offers, with the step that keeps each to a few hundred points. */
export const METRIC_RANGES = [
  { id: '1h', label: '1 h', seconds: 3600, step: 10, live: true },
  { id: '6h', label: '6 h', seconds: 6 * 3600, step: 60, live: true },
  { id: '24h', label: '24 h', seconds: 86400, step: 300, live: false },
  { id: '7d', label: '7 d', seconds: 7 * 86400, step: 1800, live: false },
  { id: '30d', label: '30 d', seconds: 30 * 86400, step: 3600, live: false },
] as const;

export type MetricRange = (typeof METRIC_RANGES)[number];
export type MetricRangeId = MetricRange['id'];

export function metricRange(id: string | undefined): MetricRange {
  return METRIC_RANGES.find((r) => r.id === id) ?? METRIC_RANGES[0];
}

/** History for the range ending now; a 404 no-metrics counts as an empty history. */
export async function loadMetrics(nodeId: string, range: MetricRange, quiet = false): Promise<MetricsHistory | undefined> {
  const until = new Date();
  const since = new Date(until.getTime() - range.seconds * 1000);
  try {
    return await api.agentMetrics(nodeId, { since: since.toISOString(), until: until.toISOString(), step: range.step });
  } catch (err) {
    if (err instanceof ApiError && err.status === 404 && err.code === 'no-metrics') {
      return { node_id: nodeId, since: since.toISOString(), until: until.toISOString(), resolution: 'raw', step_s: range.step, points: [] };
    }
    if (!quiet || (err instanceof ApiError && err.status === 401)) handleError(err, `Reading the metrics of ${nodeId}`);
    return undefined;
  }
}
