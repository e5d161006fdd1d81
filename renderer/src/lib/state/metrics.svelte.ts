import type { MetricsHistory } from '../api/client.js';
import { loadMetrics, metricRange, type MetricRange } from '../services/metrics.service.js';
import { Poller } from '../utils/poller.js';

export const METRICS_REFRESH_MS = 10_000;

/** One agent's metrics history for the chosen range; short ranges refresh every 10 s while visible. */
export class MetricsState {
  history = $state<MetricsHistory | null>(null);
  range = $state<MetricRange>(metricRange(undefined));
  loading = $state(false);

  private readonly poller = new Poller(() => this.load(), METRICS_REFRESH_MS);
  private started = false;
  private failing = false;
  private generation = 0;

  constructor(readonly nodeId: string) {}

  start(): void {
    this.started = true;
    if (this.range.live) this.poller.start();
    else void this.poller.now();
  }

  stop(): void {
    this.started = false;
    this.poller.stop();
  }

  setRange(id: string | undefined): void {
    const next = metricRange(id);
    if (next.id === this.range.id) return;
    this.range = next;
    this.generation++;
    this.history = null;
    if (!this.started) return;
    this.poller.stop();
    this.start();
  }

  refresh(): Promise<void> {
    this.failing = false;
    return this.poller.now();
  }

  private async load(): Promise<void> {
    const generation = this.generation;
    this.loading = true;
    const history = await loadMetrics(this.nodeId, this.range, this.failing);
    if (generation !== this.generation) return;
    this.loading = false;
    this.failing = history === undefined;
    if (history) this.history = history;
  }
}
