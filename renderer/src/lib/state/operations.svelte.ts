import type { OperationKind, OperationStatus } from '../../../../common/schemas/state.js';
import type { OperationSummary } from '../api/client.js';
import { loadOperations, OPERATIONS_PAGE_SIZE } from '../services/state.service.js';
import { Poller } from '../utils/poller.js';

export const OPERATIONS_REFRESH_MS = 5000;
/** The most a background refresh re-reads in one request (the API's limit). */
const MAX_REFRESH = 1000;

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
 */
export class OperationListState {
  items = $state<OperationSummary[]>([]);
  filters = $state<OperationFilters>(NO_FILTERS);
  nextCursor = $state<string | null>(null);
  loaded = $state(false);
  loading = $state(false);

  private readonly poller = new Poller(() => this.load(), OPERATIONS_REFRESH_MS);
  private failing = false;
  private generation = 0;

  constructor(readonly nodeId?: string) {}

  start(): void {
    this.poller.start();
  }

  stop(): void {
    this.poller.stop();
  }

  refresh(): Promise<void> {
    this.failing = false;
    return this.poller.now();
  }

  setFilters(next: OperationFilters): void {
    if (same(next, this.filters)) return;
    this.filters = next;
    this.generation++;
    this.failing = false;
    this.loaded = false;
    this.items = [];
    if (this.poller.active) void this.poller.now();
  }

  async loadMore(): Promise<void> {
    if (!this.nextCursor) return;
    const generation = this.generation;
    this.loading = true;
    const page = await loadOperations({ ...this.query(), limit: OPERATIONS_PAGE_SIZE, cursor: this.nextCursor }, this.nodeId);
    this.loading = false;
    if (!page || generation !== this.generation) return;
    this.items = [...this.items, ...page.items.filter((o) => !this.items.some((k) => k.operation_id === o.operation_id))];
    this.nextCursor = page.next_cursor;
  }

  private query() {
    const f = this.filters;
    return {
      node_id: f.node.trim() || undefined,
      kind: f.kind || undefined,
      status: f.status || undefined,
      assignment: f.assignment.trim() || undefined,
      since: f.since || undefined,
    };
  }

  private async load(): Promise<void> {
    const generation = this.generation;
    this.loading = true;
    // Re-read as many as are shown, so "Load more" pages stay fresh too.
    const limit = Math.min(MAX_REFRESH, Math.max(OPERATIONS_PAGE_SIZE, this.items.length));
    const page = await loadOperations({ ...this.query(), limit }, this.nodeId, { quiet: this.failing || this.loaded });
    if (generation !== this.generation) return;
    this.loading = false;
    this.loaded = true;
    if (!page) {
      this.failing = true;
      return;
    }
    this.failing = false;
    this.items = page.items;
    this.nextCursor = page.next_cursor;
  }
}
