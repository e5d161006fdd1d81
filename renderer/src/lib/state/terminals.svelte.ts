import type { TerminalSession, TerminalState } from '../api/client.js';
import { loadTerminals, TERMINALS_PAGE_SIZE } from '../services/terminals.service.js';
import { Poller } from '../utils/poller.js';

export const TERMINALS_REFRESH_MS = 5000;
/** The most a background refresh re-reads in one request (the API's limit). */
const MAX_REFRESH = 1000;

export interface TerminalFilters {
  state: TerminalState | '';
  node: string;
}

/** The sessions page's list, most recent first, refreshed while the page is visible. */
export class TerminalsState {
  items = $state<TerminalSession[]>([]);
  filters = $state<TerminalFilters>({ state: '', node: '' });
  nextCursor = $state<string | null>(null);
  loaded = $state(false);
  loading = $state(false);

  private readonly poller = new Poller(() => this.load(), TERMINALS_REFRESH_MS);
  private failing = false;
  private generation = 0;

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

  setFilters(next: TerminalFilters): void {
    if (next.state === this.filters.state && next.node === this.filters.node) return;
    this.filters = next;
    this.generation++;
    this.failing = false;
    this.loaded = false;
    this.items = [];
    if (this.poller.active) void this.poller.now();
  }

  /** A session an action changed (closed), in place ahead of the next read. */
  replace(session: TerminalSession): void {
    this.items = this.items.map((s) => (s.session_id === session.session_id ? session : s));
  }

  async loadMore(): Promise<void> {
    if (!this.nextCursor) return;
    const generation = this.generation;
    this.loading = true;
    const page = await loadTerminals({ ...this.query(), limit: TERMINALS_PAGE_SIZE, cursor: this.nextCursor });
    this.loading = false;
    if (!page || generation !== this.generation) return;
    this.items = [...this.items, ...page.items.filter((s) => !this.items.some((k) => k.session_id === s.session_id))];
    this.nextCursor = page.next_cursor;
  }

  private query() {
    return { state: this.filters.state || undefined, node_id: this.filters.node.trim() || undefined };
  }

  private async load(): Promise<void> {
    const generation = this.generation;
    this.loading = true;
    // Re-read as many as are shown, so "Load more" pages stay fresh too.
    const limit = Math.min(MAX_REFRESH, Math.max(TERMINALS_PAGE_SIZE, this.items.length));
    const page = await loadTerminals({ ...this.query(), limit }, { quiet: this.failing || this.loaded });
    if (generation !== this.generation) return;
    this.loading = false;
    if (!page) {
      this.failing = true;
      this.loaded = true;
      return;
    }
    this.failing = false;
    this.items = page.items;
    this.nextCursor = page.next_cursor;
    this.loaded = true;
  }
}
