import { Poller } from '../utils/poller.js';

/** The most a background refresh re-reads in one request (the API's limit). */
const MAX_REFRESH = 1000;

export interface KeysetPage<T> {
  items: T[];
  next_cursor: string | null;
}

export interface KeysetListOptions<T, F, Q> {
  /** What "Load more" reads, and the least a refresh re-reads. */
  pageSize: number;
  refreshMs: number;
  filters: F;
  same(a: F, b: F): boolean;
  /** The server-side query for a set of filters (without limit and cursor). */
  query(filters: F): Q;
  read(query: Q & { limit: number; cursor?: string }, options?: { quiet: boolean }): Promise<KeysetPage<T> | undefined>;
  /** Identifies an item, so a page read after a refresh does not repeat one. */
  key(item: T): string;
}

/**
 * A keyset-paged list, most recent first, refreshed while the page is visible. A refresh
 * re-reads as many items as are shown, so pages added with "Load more" stay fresh too;
 * changing the filters drops whatever an answer to the old ones brings.
 */
export class KeysetList<T, F, Q> {
  items = $state<T[]>([]);
  filters: F;
  nextCursor = $state<string | null>(null);
  loaded = $state(false);
  loading = $state(false);

  private readonly poller: Poller;
  private failing = false;
  private generation = 0;

  constructor(private readonly options: KeysetListOptions<T, F, Q>) {
    this.filters = $state(options.filters);
    this.poller = new Poller(() => this.load(), options.refreshMs);
  }

  start(): void {
    this.poller.start();
  }

  stop(): void {
    this.poller.stop();
  }

  /** Changes how often it re-reads (slower while live messages say when to). */
  protected setRefreshMs(ms: number): void {
    this.poller.setInterval(ms);
  }

  refresh(): Promise<void> {
    this.failing = false;
    return this.poller.now();
  }

  setFilters(next: F): void {
    if (this.options.same(next, this.filters)) return;
    this.filters = next;
    this.generation++;
    this.failing = false;
    this.loaded = false;
    this.items = [];
    if (this.poller.active) void this.poller.now();
  }

  async loadMore(): Promise<void> {
    if (!this.nextCursor) return;
    const { query, read, key, pageSize } = this.options;
    const generation = this.generation;
    this.loading = true;
    const page = await read({ ...query(this.filters), limit: pageSize, cursor: this.nextCursor });
    this.loading = false;
    if (!page || generation !== this.generation) return;
    this.items = [...this.items, ...page.items.filter((item) => !this.items.some((shown) => key(shown) === key(item)))];
    this.nextCursor = page.next_cursor;
  }

  private async load(): Promise<void> {
    const { query, read, pageSize } = this.options;
    const generation = this.generation;
    this.loading = true;
    const limit = Math.min(MAX_REFRESH, Math.max(pageSize, this.items.length));
    const page = await read({ ...query(this.filters), limit }, { quiet: this.failing || this.loaded });
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
