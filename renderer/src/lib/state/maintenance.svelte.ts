import type { MaintenanceWindow } from '../api/client.js';
import { loadWindows } from '../services/maintenance.service.js';
import { Poller } from '../utils/poller.js';
import { followLive, liveEvents } from './live-events.svelte.js';

/** Windows start and end by the clock; the server pushes `maintenance` when they do. This re-read covers a stream that is down. */
const FALLBACK_REFRESH_MS = 30_000;
const LIVE_REFRESH_MS = 120_000;

/** Every maintenance window, re-read when the stream says one was created, changed, started or ended. */
export class MaintenanceState {
  items = $state<MaintenanceWindow[]>([]);
  loaded = $state(false);
  loading = $state(false);

  private readonly poller = new Poller(() => this.load(), FALLBACK_REFRESH_MS);
  private stopLive: (() => void) | undefined;

  start(): void {
    this.poller.start();
    this.stopLive = followLive({
      triggers: [(soon) => liveEvents.on('maintenance', soon), (soon) => liveEvents.on('hello', soon)],
      refresh: () => void this.refresh(),
      pace: { set: (ms) => this.poller.setInterval(ms), liveMs: LIVE_REFRESH_MS, fallbackMs: FALLBACK_REFRESH_MS },
    });
  }

  stop(): void {
    this.poller.stop();
    this.stopLive?.();
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
