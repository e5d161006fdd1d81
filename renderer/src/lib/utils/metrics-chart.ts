import type { MetricsHistory, MetricsPoint } from '../api/client.js';

/** Index into the chart palette (--chart-1 ... --chart-6 in app.css). */
export type PaletteIndex = 1 | 2 | 3 | 4 | 5 | 6;

export interface ChartSeries {
  label: string;
  values: (number | null)[];
  color: PaletteIndex;
  fill?: boolean;
  dash?: boolean;
}

/** What one uPlot chart draws: x in seconds since the epoch, one value per x per series (null = gap). */
export interface ChartModel {
  x: number[];
  series: ChartSeries[];
}

export interface MetricCharts {
  cpu: ChartModel;
  memory: ChartModel;
  load: ChartModel;
  disk: ChartModel;
  network: ChartModel;
}

/**
 * The points with a null row wherever samples are missing for more than a couple of
 * steps (agent offline), so lines break there instead of bridging the gap.
 */
function withGaps(history: MetricsHistory): { x: number[]; rows: (MetricsPoint | null)[] } {
  const x: number[] = [];
  const rows: (MetricsPoint | null)[] = [];
  const step = Math.max(1, history.step_s);
  let previous: number | undefined;
  for (const point of history.points) {
    const t = Date.parse(point.ts) / 1000;
    if (previous !== undefined && t - previous > step * 2.5) {
      x.push(previous + step);
      rows.push(null);
    }
    x.push(t);
    rows.push(point);
    previous = t;
  }
  return { x, rows };
}

const PALETTE: PaletteIndex[] = [1, 2, 3, 4, 5, 6];

export function buildCharts(history: MetricsHistory): MetricCharts {
  const { x, rows } = withGaps(history);
  const pick = (f: (p: MetricsPoint) => number) => rows.map((p) => (p ? f(p) : null));
  const mounts = [...new Set(history.points.flatMap((p) => p.disks.map((d) => d.mount)))].sort();
  const hasSwap = history.points.some((p) => p.swap_total > 0);
  return {
    cpu: { x, series: [{ label: 'CPU', values: pick((p) => p.cpu_percent), color: 1, fill: true }] },
    memory: {
      x,
      series: [
        { label: 'Used', values: pick((p) => p.mem_used), color: 2, fill: true },
        { label: 'Total', values: pick((p) => p.mem_total), color: 2, dash: true },
        ...(hasSwap ? [{ label: 'Swap used', values: pick((p) => p.swap_used), color: 4 as PaletteIndex }] : []),
      ],
    },
    load: {
      x,
      series: [
        { label: '1 min', values: pick((p) => p.load1), color: 3 },
        { label: '5 min', values: pick((p) => p.load5), color: 1 },
        { label: '15 min', values: pick((p) => p.load15), color: 5 },
      ],
    },
    disk: {
      x,
      series: mounts.map((mount, i) => ({
        label: mount,
        values: rows.map((p) => {
          const d = p?.disks.find((disk) => disk.mount === mount);
          return d && d.total > 0 ? (d.used / d.total) * 100 : null;
        }),
        color: PALETTE[i % PALETTE.length]!,
      })),
    },
    network: {
      x,
      series: [
        { label: 'Received', values: pick((p) => p.net_rx_bps), color: 2, fill: true },
        { label: 'Sent', values: pick((p) => p.net_tx_bps), color: 6 },
      ],
    },
  };
}

/** The newest non-null value of a series. */
export function lastValue(series: ChartSeries | undefined): number | undefined {
  if (!series) return undefined;
  for (let i = series.values.length - 1; i >= 0; i--) {
    const v = series.values[i];
    if (v !== null && v !== undefined) return v;
  }
  return undefined;
}
