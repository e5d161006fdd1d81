import { SvelteSet } from 'svelte/reactivity';
import type { Agent, ApprovalStatus } from '../api/client.js';
import { loadFleet } from '../services/agents.service.js';
import { Poller } from '../utils/poller.js';
import { selectorProblem } from '../utils/selector-check.js';
import { FormErrors } from './form-errors.svelte.js';
import { followLive, liveEvents } from './live-events.svelte.js';

export type StatusTab = 'all' | ApprovalStatus;
export type OnlineFilter = 'any' | 'online' | 'offline';

export interface FleetFilters {
  status: StatusTab;
  online: OnlineFilter;
  /** Label selector over tags, e.g. role=web,env in (prod,staging). */
  selector: string;
}

/**
 * With the live stream up, `agent` and `maintenance` messages trigger a re-read; the slow
 * timer only keeps the CPU and memory columns current (no message carries metrics).
 */
export const FLEET_METRICS_REFRESH_MS = 15_000;
/** With the stream down: a slow fallback re-read until it is back. */
export const FLEET_FALLBACK_REFRESH_MS = 30_000;

/**
 * The Fleet page's list, kept fresh while the page is open: every agent matching the
 * online filter and selector (the server filters those), split by approval status here
 * so the status tabs can show counts from one request. Live messages (`agent`: link up or
 * down, status, tags, enrolled, deleted; `maintenance`: a window changed) re-read it, a
 * burst of them once; a slow timer covers metrics and a stream that is down.
 */
export class FleetState {
  /** Agents matching online + selector, every status. */
  all = $state<Agent[]>([]);
  filters = $state<FleetFilters>({ status: 'all', online: 'any', selector: '' });
  loaded = $state(false);
  loading = $state(false);
  /** More agents matched than one view reads. */
  truncated = $state(false);
  /** When the list was last read (ms since the epoch). */
  updatedAt = $state<number | null>(null);
  /** The orchestrator's answer to a selector it refused (querystring.selector). */
  readonly serverErrors = new FormErrors();
  readonly selected = new SvelteSet<string>();

  /** The selector's first problem, found in the browser with the orchestrator's own parser. */
  readonly selectorProblem = $derived(selectorProblem(this.filters.selector));

  readonly counts = $derived.by(() => {
    const counts: Record<StatusTab, number> = { all: this.all.length, pending: 0, accepted: 0, rejected: 0 };
    for (const agent of this.all) counts[agent.status]++;
    return counts;
  });

  /** What the table shows: the current status tab. */
  readonly agents = $derived(this.filters.status === 'all' ? this.all : this.all.filter((a) => a.status === this.filters.status));
  readonly selectedAgents = $derived(this.agents.filter((a) => this.selected.has(a.node_id)));

  private readonly poller = new Poller(() => this.load(), FLEET_FALLBACK_REFRESH_MS);
  private stopLive: (() => void) | undefined;
  /** The last read failed: later background failures stay quiet until one succeeds. */
  private failing = false;
  /** Bumped when the server-side filters change, so an answer to the old ones is dropped. */
  private generation = 0;

  start(): void {
    this.poller.start();
    this.stopLive = followLive({
      triggers: [(soon) => liveEvents.on('agent', soon), (soon) => liveEvents.on('maintenance', soon), (soon) => liveEvents.on('hello', soon)],
      refresh: () => void this.poller.now(),
      pace: { set: (ms) => this.poller.setInterval(ms), liveMs: FLEET_METRICS_REFRESH_MS, fallbackMs: FLEET_FALLBACK_REFRESH_MS },
    });
  }

  stop(): void {
    this.poller.stop();
    this.stopLive?.();
  }

  refresh(): Promise<void> {
    this.failing = false;
    return this.poller.now();
  }

  setFilters(next: FleetFilters): void {
    const serverSide = next.online !== this.filters.online || next.selector !== this.filters.selector;
    this.filters = next;
    if (!serverSide) return;
    this.generation++;
    this.failing = false;
    this.serverErrors.clear();
    this.loaded = false;
    if (this.poller.active) void this.poller.now();
  }

  /** Puts agents changed by an action in place at once, ahead of the next read. */
  replace(changed: Agent[]): void {
    this.all = this.all.map((a) => changed.find((c) => c.node_id === a.node_id) ?? a);
  }

  toggle(nodeId: string, on: boolean): void {
    if (on) this.selected.add(nodeId);
    else this.selected.delete(nodeId);
  }

  /** Selects every agent in the table, or none. */
  toggleAll(on: boolean): void {
    this.selected.clear();
    if (on) for (const a of this.agents) this.selected.add(a.node_id);
  }

  private async load(): Promise<void> {
    const { online, selector } = this.filters;
    if (this.selectorProblem || (this.serverErrors.any && this.failing)) return;
    const generation = this.generation;
    this.loading = true;
    const page = await loadFleet(
      { online: online === 'any' ? undefined : online === 'online', selector: selector.trim() || undefined },
      this.serverErrors,
      { quiet: this.failing },
    );
    if (generation !== this.generation) return;
    this.loading = false;
    if (!page) {
      this.failing = true;
      return;
    }
    this.failing = false;
    this.all = page.items;
    this.truncated = page.truncated;
    this.loaded = true;
    this.updatedAt = Date.now();
    for (const id of [...this.selected]) if (!page.items.some((a) => a.node_id === id)) this.selected.delete(id);
  }
}
