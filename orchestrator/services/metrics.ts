// Agent metrics (DESIGN.md "Agents"): validation of what agents send, raw samples for
// 48 h, 1-minute rollups for 14 days, 1-hour rollups for a year, history at any step
// from the resolution that serves it, and each agent's latest sample.
//
// Rollups are updated incrementally, inside the same transaction that stores the raw
// samples, rather than by a periodic job: each sample is merged into its minute and its
// hour bucket as a weighted average (see MetricsRepository.mergeRollup). So a late
// sample (buffered through a link outage, any order) lands in the right buckets as soon
// as it arrives, there is never a "not rolled up yet" gap, and a sample sent twice is
// ignored by the raw table's primary key before it can be counted twice. Samples older
// than the raw retention are refused, so every rollup row is backed by raw samples that
// were stored when it was updated. The only job is retention, every few minutes.

import type { MetricsSample } from '../../common/protocol.js';
import { MAX_SAMPLES_PER_MESSAGE } from '../../common/protocol.js';
import type { MetricsHistory, MetricsLatest, MetricsPoint, MetricsQuery } from '../../common/schemas/metrics.js';
import { BadRequest } from '../http/errors.js';
import { AVERAGED_FIELDS, type AveragedField, type MetricsRepository, type MetricsRow, type Resolution, type Rollup } from '../repositories/metrics.js';
import { startPeriodic } from './periodic.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export const RETENTION_MS: Record<Resolution, number> = { raw: 48 * HOUR, '1m': 14 * DAY, '1h': 365 * DAY };
const BUCKET_MS: Record<Rollup, number> = { '1m': MINUTE, '1h': HOUR };
/** Samples stamped further ahead of the orchestrator's clock than this are refused. */
export const MAX_FUTURE_MS = DAY;
export const MAX_POINTS = 2000;
/** Without `step`, a window is cut into about this many points (never finer than 10 s). */
const DEFAULT_POINTS = 360;
const DEFAULT_MIN_STEP_S = 10;
const DEFAULT_WINDOW_MS = HOUR;
const RETENTION_INTERVAL_MS = 5 * MINUTE;
const MAX_DISKS = 64;
const MAX_MOUNT_LENGTH = 4096;
/** Steps a computed step is rounded up to, so buckets line up with minutes, hours and days. */
const NICE_STEPS_S = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400];

export interface IngestResult {
  /** Stored (new) samples. */
  accepted: number;
  /** Samples with a ts already stored for the agent (a resend); ignored. */
  duplicates: number;
  /** Samples refused; `reasons` says why, by reason, with counts. */
  rejected: number;
  reasons: Record<string, number>;
}

export interface MetricsServiceOptions {
  /** The clock (ms); tests move it. */
  now?: () => number;
}

type Checked = { ok: true; sample: MetricsSample; droppedDisks: number } | { ok: false; reason: string };

const BYTES_MAX = Number.MAX_SAFE_INTEGER;
/** [min, max] per numeric field; out of range (or not a finite number) refuses the sample. */
const RANGES: Record<Exclude<keyof MetricsSample, 'ts' | 'disks'>, [number, number]> = {
  cpu_percent: [0, 101], // up to 1 point of rounding on the agent; stored as at most 100
  load1: [0, 1e6],
  load5: [0, 1e6],
  load15: [0, 1e6],
  mem_used: [0, BYTES_MAX],
  mem_total: [0, BYTES_MAX],
  swap_used: [0, BYTES_MAX],
  swap_total: [0, BYTES_MAX],
  net_rx_bps: [0, BYTES_MAX],
  net_tx_bps: [0, BYTES_MAX],
  processes: [0, 1e7],
  uptime_s: [0, 100 * 365 * 86400],
};

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function inRange(v: unknown, [min, max]: [number, number]): v is number {
  return typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max;
}

/** Checks one sample from an agent; never throws, whatever it is. */
export function checkSample(raw: unknown, receivedAt: number): Checked {
  if (!isRecord(raw)) return { ok: false, reason: 'not-an-object' };
  const ts = raw.ts;
  if (typeof ts !== 'number' || !Number.isFinite(ts) || ts <= 0) return { ok: false, reason: 'invalid-ts' };
  if (ts > receivedAt + MAX_FUTURE_MS) return { ok: false, reason: 'ts-in-future' };
  if (ts < receivedAt - RETENTION_MS.raw) return { ok: false, reason: 'ts-too-old' };
  const values: Partial<Record<keyof typeof RANGES, number>> = {};
  for (const [field, range] of Object.entries(RANGES) as [keyof typeof RANGES, [number, number]][]) {
    const v = raw[field];
    if (!inRange(v, range)) return { ok: false, reason: `invalid-${field}` };
    values[field] = v;
  }
  const v = values as Record<keyof typeof RANGES, number>;
  if (v.mem_used > v.mem_total) return { ok: false, reason: 'mem_used-above-total' };
  if (v.swap_used > v.swap_total) return { ok: false, reason: 'swap_used-above-total' };
  if (raw.disks !== undefined && !Array.isArray(raw.disks)) return { ok: false, reason: 'invalid-disks' };
  // One odd mount must not cost the whole sample: bad disk entries are dropped (and counted).
  const disks: MetricsSample['disks'] = [];
  let droppedDisks = 0;
  for (const d of (raw.disks as unknown[] | undefined) ?? []) {
    const ok =
      disks.length < MAX_DISKS &&
      isRecord(d) &&
      typeof d.mount === 'string' &&
      d.mount.length > 0 &&
      d.mount.length <= MAX_MOUNT_LENGTH &&
      inRange(d.used, [0, BYTES_MAX]) &&
      inRange(d.total, [0, BYTES_MAX]) &&
      d.used <= d.total;
    if (ok) disks.push({ mount: d.mount as string, used: d.used as number, total: d.total as number });
    else droppedDisks++;
  }
  return { ok: true, sample: { ts: Math.round(ts), ...v, cpu_percent: Math.min(v.cpu_percent, 100), disks }, droppedDisks };
}

function sampleRow(s: MetricsSample): MetricsRow {
  return {
    ts: s.ts,
    samples: 1,
    last_ts: s.ts,
    cpu_max: s.cpu_percent,
    cpu_percent: s.cpu_percent,
    load1: s.load1,
    load5: s.load5,
    load15: s.load15,
    mem_used: s.mem_used,
    mem_total: s.mem_total,
    swap_used: s.swap_used,
    swap_total: s.swap_total,
    net_rx_bps: s.net_rx_bps,
    net_tx_bps: s.net_tx_bps,
    processes: s.processes,
    uptime_s: s.uptime_s,
    disks: JSON.stringify(s.disks),
  };
}

/** Merges rows (samples or buckets) into buckets of `bucketMs` aligned to the epoch. */
export function downsample(rows: Iterable<MetricsRow>, bucketMs: number): MetricsRow[] {
  const buckets = new Map<number, MetricsRow>();
  for (const row of rows) {
    const ts = Math.floor(row.ts / bucketMs) * bucketMs;
    const b = buckets.get(ts);
    if (!b) {
      const sums = { ...row, ts };
      for (const f of AVERAGED_FIELDS) sums[f] = row[f] * row.samples;
      buckets.set(ts, sums);
      continue;
    }
    for (const f of AVERAGED_FIELDS) b[f] += row[f] * row.samples;
    b.samples += row.samples;
    b.cpu_max = Math.max(b.cpu_max, row.cpu_max);
    if (row.last_ts >= b.last_ts) {
      b.last_ts = row.last_ts;
      b.uptime_s = row.uptime_s;
      b.disks = row.disks;
    }
  }
  const out = [...buckets.values()];
  for (const b of out) for (const f of AVERAGED_FIELDS) b[f] /= b.samples;
  return out;
}

const round = (v: number, digits: number) => {
  const k = 10 ** digits;
  return Math.round(v * k) / k;
};
/** Decimal places kept in history points: averages of byte counts need no fractions. */
const DIGITS: Record<AveragedField, number> = {
  cpu_percent: 2,
  load1: 2,
  load5: 2,
  load15: 2,
  mem_used: 0,
  mem_total: 0,
  swap_used: 0,
  swap_total: 0,
  net_rx_bps: 0,
  net_tx_bps: 0,
  processes: 1,
};

function toPoint(row: MetricsRow): MetricsPoint {
  const point = { ts: new Date(row.ts).toISOString() } as MetricsPoint;
  for (const f of AVERAGED_FIELDS) point[f] = round(row[f], DIGITS[f]);
  point.uptime_s = Math.round(row.uptime_s);
  point.disks = JSON.parse(row.disks) as MetricsPoint['disks'];
  return point;
}

function toLatest(nodeId: string, sample: MetricsSample, receivedAt: number): MetricsLatest {
  return { node_id: nodeId, received_at: new Date(receivedAt).toISOString(), sample: { ...sample, ts: new Date(sample.ts).toISOString() } };
}

/** The smallest nice step >= seconds (whole days beyond one day). */
export function niceStep(seconds: number): number {
  return NICE_STEPS_S.find((s) => s >= seconds) ?? Math.ceil(seconds / 86400) * 86400;
}

export interface HistoryPlan {
  since: number;
  until: number;
  resolution: Resolution;
  stepS: number;
}

/**
 * Which table answers and at what step. The step is the one asked for (or one giving
 * about 360 points), raised until the window holds at most MAX_POINTS buckets; the
 * resolution is raw when the window starts within the raw retention and the step is
 * under a minute, 1m when the step is under an hour and the window starts within 14
 * days, else 1h; the step is then a whole number of the resolution's buckets. `since`
 * is aligned down to a step boundary (buckets are epoch-aligned); `until` is exclusive.
 */
export function planHistory(q: MetricsQuery, now: number): HistoryPlan {
  const until = q.until === undefined ? now : Date.parse(q.until);
  const since = q.since === undefined ? until - DEFAULT_WINDOW_MS : Date.parse(q.since);
  if (Number.isNaN(since) || Number.isNaN(until)) throw new BadRequest('since and until must be RFC 3339 times');
  if (since >= until) throw new BadRequest('since must be before until', [{ field: 'querystring.since', message: 'must be before until' }]);
  const windowS = (until - since) / SECOND;
  let stepS = q.step ?? Math.max(DEFAULT_MIN_STEP_S, niceStep(windowS / DEFAULT_POINTS));
  const buckets = (s: number) => Math.ceil((until - Math.floor(since / (s * SECOND)) * s * SECOND) / (s * SECOND));
  if (buckets(stepS) > MAX_POINTS) {
    stepS = niceStep(windowS / MAX_POINTS);
    while (buckets(stepS) > MAX_POINTS) stepS = niceStep(stepS + 1);
  }
  let resolution: Resolution;
  if (stepS < 60 && since >= now - RETENTION_MS.raw) resolution = 'raw';
  else if (stepS < 3600 && since >= now - RETENTION_MS['1m']) resolution = '1m';
  else resolution = '1h';
  if (resolution !== 'raw') {
    const bucketS = BUCKET_MS[resolution] / SECOND;
    stepS = Math.ceil(stepS / bucketS) * bucketS;
  }
  return { since: Math.floor(since / (stepS * SECOND)) * stepS * SECOND, until, resolution, stepS };
}

export class MetricsService {
  private readonly latestByNode = new Map<string, { ts: number; value: MetricsLatest }>();
  private readonly now: () => number;
  private stopRetention: (() => void) | undefined;
  private readonly totals = { accepted: 0, duplicates: 0, rejected: 0 };

  constructor(
    private readonly repo: MetricsRepository,
    options: MetricsServiceOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    for (const row of repo.allLatest()) {
      const sample = JSON.parse(row.sample) as MetricsSample;
      this.latestByNode.set(row.node_id, { ts: row.ts, value: toLatest(row.node_id, sample, row.received_at) });
    }
  }

  /**
   * Stores what an agent sent, oldest first or in any order, in one transaction.
   * Bad samples are refused and counted, never thrown: the agent is not trusted.
   */
  ingest(nodeId: string, samples: unknown, receivedAt = this.now()): IngestResult {
    const result: IngestResult = { accepted: 0, duplicates: 0, rejected: 0, reasons: {} };
    const refuse = (reason: string, n = 1) => {
      result.rejected += n;
      result.reasons[reason] = (result.reasons[reason] ?? 0) + n;
    };
    if (!Array.isArray(samples)) {
      refuse('not-an-array');
      return this.count(result);
    }
    const valid: MetricsSample[] = [];
    for (const [i, raw] of samples.entries()) {
      if (i >= MAX_SAMPLES_PER_MESSAGE) {
        refuse('too-many-samples', samples.length - i);
        break;
      }
      const checked = checkSample(raw, receivedAt);
      if (!checked.ok) {
        refuse(checked.reason);
        continue;
      }
      valid.push(checked.sample);
      if (checked.droppedDisks) result.reasons['disk-entries-dropped'] = (result.reasons['disk-entries-dropped'] ?? 0) + checked.droppedDisks;
    }
    if (!valid.length) return this.count(result);

    const newest = valid.reduce((a, b) => (b.ts > a.ts ? b : a));
    try {
      const stored = this.repo.transaction(() => {
        const rows = valid.map(sampleRow).filter((row) => this.repo.insertRaw(nodeId, row));
        for (const rollup of ['1m', '1h'] as const) {
          for (const bucket of downsample(rows, BUCKET_MS[rollup])) this.repo.mergeRollup(rollup, nodeId, bucket);
        }
        this.repo.setLatest({ node_id: nodeId, ts: newest.ts, received_at: receivedAt, sample: JSON.stringify(newest) });
        return rows.length;
      });
      result.accepted = stored;
      result.duplicates = valid.length - stored;
    } catch (err) {
      // The agent's record went away (deleted) while its samples were on the way.
      if ((err as { code?: unknown }).code === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
        refuse('unknown-agent', valid.length);
        return this.count(result);
      }
      throw err;
    }
    const current = this.latestByNode.get(nodeId);
    if (!current || newest.ts >= current.ts) {
      this.latestByNode.set(nodeId, { ts: newest.ts, value: toLatest(nodeId, newest, receivedAt) });
    }
    return this.count(result);
  }

  private count(result: IngestResult): IngestResult {
    this.totals.accepted += result.accepted;
    this.totals.duplicates += result.duplicates;
    this.totals.rejected += result.rejected;
    return result;
  }

  /** Samples accepted, ignored as duplicates and refused since start. */
  stats(): { accepted: number; duplicates: number; rejected: number } {
    return { ...this.totals };
  }

  /** The newest sample (by its ts) an agent has sent, from memory. */
  latest(nodeId: string): MetricsLatest | undefined {
    return this.latestByNode.get(nodeId)?.value;
  }

  /** Drops an agent's latest sample from memory; its rows go with the agent (ON DELETE CASCADE). */
  forget(nodeId: string): void {
    this.latestByNode.delete(nodeId);
  }

  /**
   * History between `since` (default: `until` - 1 h) and `until` (default: now), averaged
   * into `step` buckets; buckets without samples are left out. See planHistory for how
   * the resolution and step are chosen. An unknown agent simply has no points.
   */
  history(nodeId: string, query: MetricsQuery = {}, now = this.now()): MetricsHistory {
    const plan = planHistory(query, now);
    const rows = this.repo.range(plan.resolution, nodeId, plan.since, plan.until);
    return {
      node_id: nodeId,
      since: new Date(plan.since).toISOString(),
      until: new Date(plan.until).toISOString(),
      resolution: plan.resolution,
      step_s: plan.stepS,
      points: downsample(rows, plan.stepS * SECOND).map(toPoint),
    };
  }

  /** Deletes raw samples older than 48 h, 1m rows older than 14 days, 1h rows older than a year; one transaction per agent. */
  applyRetention(now = this.now()): Record<Resolution, number> {
    const deleted: Record<Resolution, number> = { raw: 0, '1m': 0, '1h': 0 };
    for (const nodeId of this.repo.nodes()) {
      this.repo.transaction(() => {
        for (const r of ['raw', '1m', '1h'] as const) deleted[r] += this.repo.prune(r, nodeId, now - RETENTION_MS[r]);
      });
    }
    return deleted;
  }

  /** Applies retention now and every few minutes after, on a timer that does not keep the process alive. */
  start(onError: (err: unknown) => void, intervalMs = RETENTION_INTERVAL_MS): void {
    this.stopRetention ??= startPeriodic(() => this.applyRetention(), intervalMs, onError);
  }

  stop(): void {
    this.stopRetention?.();
    this.stopRetention = undefined;
  }
}
