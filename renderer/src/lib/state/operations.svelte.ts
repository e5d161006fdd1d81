import type { OperationKind, OperationStatus } from '../../../../common/schemas/state.js';
import type { OperationsQuery, OperationSummary } from '../api/client.js';
import { loadOperations, OPERATIONS_PAGE_SIZE } from '../services/state.service.js';
import { KeysetList } from './keyset-list.svelte.js';
import { followLive, liveEvents } from './live-events.svelte.js';

/** Without the live stream: re-read this often. */
export const OPERATIONS_REFRESH_MS = 5000;
/** With it, `operation` messages trigger re-reads; this only catches anything missed. */
const OPERATIONS_LIVE_REFRESH_MS = 30_000;

export interface OperationFilters {
  node: string;
  kind: OperationKind | '';
  status: OperationStatus | '';
  assignment: string;
  /** ISO time: only operations created at or after it. */
  since: string;
}

export const NO_FILTERS: OperationFilters = { node: '', kind: '', status: '', assignment: '', since: '' };

function same(a: OperationFilters, b: OperationFilters): boolean {
  return a.node === b.node && a.kind === b.kind && a.status === b.status && a.assignment === b.assignment && a.since === b.since;
}

/**
 * A list of operations, most recent first, refreshed while the page is visible: the
 * whole fleet's (Operations page) or one agent's (`nodeId`, the agent's Operations tab).
 * An `operation` live message (queued, running, finished) re-reads it.
 */
export class OperationListState extends KeysetList<OperationSummary, OperationFilters, OperationsQuery> {
  private stopLive: (() => void) | undefined;

  constructor(readonly nodeId?: string) {
    super({
      pageSize: OPERATIONS_PAGE_SIZE,
      refreshMs: OPERATIONS_REFRESH_MS,
      filters: NO_FILTERS,
      same,
      query: (f) => ({
        node_id: f.node.trim() || undefined,
        kind: f.kind || undefined,
        status: f.status || undefined,
        assignment: f.assignment.trim() || undefined,
        since: f.since || undefined,
      }),
      read: (query, options) => loadOperations(query, nodeId, options),
      key: (o) => o.operation_id,
    });
  }

  override start(): void {
    super.start();
    this.stopLive = followLive({
      triggers: [
        (soon) =>
          liveEvents.on('operation', (m) => {
            if (this.nodeId === undefined || m.node_id === this.nodeId) soon();
          }),
      ],
      refresh: () => void this.refresh(),
      pace: { set: (ms) => this.setRefreshMs(ms), liveMs: OPERATIONS_LIVE_REFRESH_MS, fallbackMs: OPERATIONS_REFRESH_MS },
    });
  }

  override stop(): void {
    super.stop();
    this.stopLive?.();
  }
}
