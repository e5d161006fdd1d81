import type Database from 'better-sqlite3';
import type { Db } from '../db/database.js';

/** The numeric fields a rollup averages (weighted by sample count when buckets merge). */
export const AVERAGED_FIELDS = [
  'cpu_percent',
  'load1',
  'load5',
  'load15',
  'mem_used',
  'mem_total',
  'swap_used',
  'swap_total',
  'net_rx_bps',
  'net_tx_bps',
  'processes',
] as const;
export type AveragedField = (typeof AVERAGED_FIELDS)[number];

export type Resolution = 'raw' | '1m' | '1h';
export type Rollup = Exclude<Resolution, 'raw'>;
export const RESOLUTIONS: readonly Resolution[] = ['raw', '1m', '1h'];

/**
 * One sample or one bucket of samples, in the shape every table reads as: averages
 * over `samples` samples, the highest CPU reading, and uptime and disks (JSON) as of
 * the newest sample in it (`last_ts`). A raw sample is a bucket of one.
 */
export type MetricsRow = Record<AveragedField, number> & {
  ts: number;
  samples: number;
  last_ts: number;
  cpu_max: number;
  uptime_s: number;
  disks: string;
};

export interface LatestRow {
  node_id: string;
  ts: number;
  received_at: number;
  sample: string;
}

const TABLE: Record<Resolution, string> = { raw: 'metrics_raw', '1m': 'metrics_1m', '1h': 'metrics_1h' };
const AVERAGED = AVERAGED_FIELDS.join(', ');
const named = (fields: readonly string[]) => fields.map((f) => `@${f}`).join(', ');

/** SQL for the metrics tables (003_metrics.sql); statements are prepared once. */
export class MetricsRepository {
  private readonly insertRawStmt: Database.Statement<MetricsRow & { node_id: string }>;
  private readonly mergeStmt: Record<Rollup, Database.Statement<MetricsRow & { node_id: string }>>;
  private readonly rangeStmt: Record<Resolution, Database.Statement<[string, number, number], MetricsRow>>;
  private readonly pruneStmt: Record<Resolution, Database.Statement<[string, number]>>;
  private readonly setLatestStmt: Database.Statement<LatestRow>;
  private readonly allLatestStmt: Database.Statement<[], LatestRow>;
  private readonly nodesStmt: Database.Statement<[], { node_id: string }>;

  constructor(private readonly db: Db) {
    const rawColumns = [...AVERAGED_FIELDS, 'uptime_s', 'disks'];
    this.insertRawStmt = db.prepare(
      `INSERT OR IGNORE INTO metrics_raw (node_id, ts, ${rawColumns.join(', ')}) VALUES (@node_id, @ts, ${named(rawColumns)})`,
    );

    // Merging a bucket into a stored one: averages weighted by their sample counts,
    // the larger maximum, and the readings of whichever holds the newer sample.
    // (In an upsert's SET every bare column is the stored row's value before the update.)
    const rollupColumns = ['samples', 'last_ts', 'cpu_max', ...AVERAGED_FIELDS, 'uptime_s', 'disks'];
    const merge = (table: string) =>
      db.prepare<MetricsRow & { node_id: string }>(
        `INSERT INTO ${table} (node_id, ts, ${rollupColumns.join(', ')}) VALUES (@node_id, @ts, ${named(rollupColumns)})
         ON CONFLICT (node_id, ts) DO UPDATE SET
           ${AVERAGED_FIELDS.map((f) => `${f} = (${f} * samples + excluded.${f} * excluded.samples) / (samples + excluded.samples)`).join(',\n           ')},
           cpu_max = max(cpu_max, excluded.cpu_max),
           uptime_s = CASE WHEN excluded.last_ts >= last_ts THEN excluded.uptime_s ELSE uptime_s END,
           disks = CASE WHEN excluded.last_ts >= last_ts THEN excluded.disks ELSE disks END,
           last_ts = max(last_ts, excluded.last_ts),
           samples = samples + excluded.samples`,
      );
    this.mergeStmt = { '1m': merge(TABLE['1m']), '1h': merge(TABLE['1h']) };

    const rollupRange = (table: string) =>
      db.prepare<[string, number, number], MetricsRow>(
        `SELECT ts, samples, last_ts, cpu_max, ${AVERAGED}, uptime_s, disks FROM ${table}
         WHERE node_id = ? AND ts >= ? AND ts < ? ORDER BY ts`,
      );
    this.rangeStmt = {
      raw: db.prepare<[string, number, number], MetricsRow>(
        `SELECT ts, 1 AS samples, ts AS last_ts, cpu_percent AS cpu_max, ${AVERAGED}, uptime_s, disks FROM metrics_raw
         WHERE node_id = ? AND ts >= ? AND ts < ? ORDER BY ts`,
      ),
      '1m': rollupRange(TABLE['1m']),
      '1h': rollupRange(TABLE['1h']),
    };

    const prune = (table: string) => db.prepare<[string, number]>(`DELETE FROM ${table} WHERE node_id = ? AND ts < ?`);
    this.pruneStmt = { raw: prune(TABLE.raw), '1m': prune(TABLE['1m']), '1h': prune(TABLE['1h']) };

    this.setLatestStmt = db.prepare(
      `INSERT INTO metrics_latest (node_id, ts, received_at, sample) VALUES (@node_id, @ts, @received_at, @sample)
       ON CONFLICT (node_id) DO UPDATE SET ts = excluded.ts, received_at = excluded.received_at, sample = excluded.sample
       WHERE excluded.ts >= metrics_latest.ts`,
    );
    this.allLatestStmt = db.prepare('SELECT node_id, ts, received_at, sample FROM metrics_latest');
    this.nodesStmt = db.prepare('SELECT node_id FROM metrics_latest ORDER BY node_id');
  }

  /** Runs `fn` in one transaction (nested calls join the outer one). */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  /** Stores one raw sample; false when the agent already sent a sample with that ts. */
  insertRaw(nodeId: string, row: MetricsRow): boolean {
    return this.insertRawStmt.run({ ...row, node_id: nodeId }).changes === 1;
  }

  /** Adds a bucket (row.ts = bucket start) into the stored rollup bucket. */
  mergeRollup(rollup: Rollup, nodeId: string, row: MetricsRow): void {
    this.mergeStmt[rollup].run({ ...row, node_id: nodeId });
  }

  /** Rows with since <= ts < until, oldest first. */
  range(resolution: Resolution, nodeId: string, since: number, until: number): IterableIterator<MetricsRow> {
    return this.rangeStmt[resolution].iterate(nodeId, since, until);
  }

  /** Deletes one agent's rows older than `before`; walks the primary key. */
  prune(resolution: Resolution, nodeId: string, before: number): number {
    return this.pruneStmt[resolution].run(nodeId, before).changes;
  }

  /** Keeps the sample unless a newer one (by ts) is stored already. */
  setLatest(row: LatestRow): void {
    this.setLatestStmt.run(row);
  }

  allLatest(): LatestRow[] {
    return this.allLatestStmt.all();
  }

  /** Every agent that has sent metrics (each such agent has a latest row). */
  nodes(): string[] {
    return this.nodesStmt.all().map((r) => r.node_id);
  }
}
