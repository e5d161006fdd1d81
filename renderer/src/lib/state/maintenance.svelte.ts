import type { MaintenanceWindow } from '../api/client.js';
import { loadWindows } from '../services/maintenance.service.js';
import { Poller } from '../utils/poller.js';
import { debounced, liveEvents } from './live-events.svelte.js';

/** Windows start and end by the clock; the server pushes `maintenance` when they do. This re-read covers a stream that is down. */
const FALLBACK_REFRESH_MS = 30_000;
const LIVE_REFRESH_MS = 120_000;

/** Every maintenance window, re-read when the stream says one was created, changed, started or ended. */
export class MaintenanceState {
  items = $state<MaintenanceWindow[]>([]);
  loaded = $state(false);
  loading = $state(false);

  private readonly poller = new Poller(() => this.load(), FALLBACK_REFRESH_MS);
  private readonly soon = debounced(() => void this.refresh(), 300);
  private unsubscribe: (() => void)[] = [];
  private stopPace: (() => void) | undefined;

  start(): void {
    this.poller.start();
    this.unsubscribe = [liveEvents.on('maintenance', this.soon), liveEvents.on('hello', this.soon)];
    this.stopPace = $effect.root(() => {
      $effect(() => this.poller.setInterval(liveEvents.connected ? LIVE_REFRESH_MS : FALLBACK_REFRESH_MS));
    });
  }

  stop(): void {
    this.poller.stop();
    this.soon.cancel();
    this.stopPace?.();
    for (const off of this.unsubscribe) off();
    this.unsubscribe = [];
  }

  refresh(): Promise<void> {
    return this.poller.now();
  }

  /** Puts a window an action answered with in place at once. */
  put(window: MaintenanceWindow): void {
    this.items = this.items.some((w) => w.id === window.id) ? this.items.map((w) => (w.id === window.id ? window : w)) : [window, ...this.items];
  }

  remove(id: string): void {
    this.items = this.items.filter((w) => w.id !== id);
  }

  private async load(): Promise<void> {
    this.loading = true;
    const items = await loadWindows({ quiet: this.loaded });
    this.loading = false;
    this.loaded = true;
    if (items) this.items = items;
  }
}
