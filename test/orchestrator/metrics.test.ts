import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import type { MetricsSample } from '../../common/protocol.js';
import { Problem } from '../../common/schemas/shared.js';
import type { Services } from '../../orchestrator/context.js';
import { openDatabase, type Db } from '../../orchestrator/db/database.js';
import { NotFound } from '../../orchestrator/http/errors.js';
import '../../orchestrator/http/fastify-augment.js';
import { registerProblemHandlers } from '../../orchestrator/http/problem-handler.js';
import { validatorCompiler } from '../../orchestrator/http/validators.js';
import { MetricsRepository } from '../../orchestrator/repositories/metrics.js';
import { metricsRoutes } from '../../orchestrator/routes/metrics.js';
import { MAX_POINTS, MetricsService, planHistory } from '../../orchestrator/services/metrics.js';
import { removeDir, tempDir } from '../helpers/orchestrator.js';

const S = 1000;
const MIN = 60 * S;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
/** "Now" in these tests: a whole hour, so bucket boundaries are easy to reason about. */
const T0 = Date.parse('2025-06-01T12:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

let dir: string;
let n = 0;
before(() => {
  dir = tempDir('corral-metrics-');
});
after(() => removeDir(dir));

function freshDb(file = path.join(dir, `db-${++n}.sqlite`)): Db {
  return openDatabase(file);
}

function addAgent(db: Db, nodeId: string): void {
  db.prepare(
    "INSERT INTO agents (node_id, public_key, key_fingerprint, status, first_seen) VALUES (?, 'key', 'SHA256:x', 'accepted', ?)",
  ).run(nodeId, iso(T0));
}

function sample(ts: number, over: Partial<MetricsSample> = {}): MetricsSample {
  return {
    ts,
    cpu_percent: 10,
    load1: 0.5,
    load5: 0.4,
    load15: 0.3,
    mem_used: 1000,
    mem_total: 4000,
    swap_used: 0,
    swap_total: 2000,
    disks: [{ mount: '/', used: 100, total: 1000 }],
    net_rx_bps: 100,
    net_tx_bps: 50,
    processes: 100,
    uptime_s: 3600,
    ...over,
  };
}

function rows(db: Db, table: string, nodeId = 'web-1'): Record<string, number | string>[] {
  return db.prepare(`SELECT * FROM ${table} WHERE node_id = ? ORDER BY ts`).all(nodeId) as Record<string, number | string>[];
}

function count(db: Db, table: string): number {
  return (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
}

interface Fixture {
  db: Db;
  metrics: MetricsService;
  clock: { now: number };
}

function fixture(nodes = ['web-1']): Fixture {
  const db = freshDb();
  for (const node of nodes) addAgent(db, node);
  const clock = { now: T0 };
  return { db, clock, metrics: new MetricsService(new MetricsRepository(db), { now: () => clock.now }) };
}

describe('MetricsService.ingest', () => {
  let f: Fixture;
  beforeEach(() => {
    f = fixture();
  });
  afterEach(() => f.db.close());

  it('stores good samples and refuses garbage, counting why, without throwing', () => {
    const good = sample(T0 - 10 * S);
    const garbage: unknown[] = [
      null,
      'sample',
      42,
      [],
      {},
      { ...sample(T0), ts: '2025-06-01T12:00:00Z' },
      { ...sample(T0), ts: NaN },
      { ...sample(T0), ts: -5 },
      sample(T0 + DAY + S), // more than a day ahead of the orchestrator's clock
      sample(T0 - 48 * HOUR - S), // older than the raw retention
      { ...sample(T0), cpu_percent: 150 },
      { ...sample(T0), cpu_percent: -1 },
      { ...sample(T0), cpu_percent: Infinity },
      { ...sample(T0), cpu_percent: '12' },
      { ...sample(T0), load1: -0.1 },
      { ...sample(T0), mem_used: 5000 }, // above mem_total
      { ...sample(T0), swap_used: 1, swap_total: 0 },
      { ...sample(T0), net_rx_bps: Number.MAX_VALUE },
      { ...sample(T0), processes: null },
      { ...sample(T0), uptime_s: undefined },
      { ...sample(T0), disks: 'sda' },
    ];
    const result = f.metrics.ingest('web-1', [good, ...garbage], T0);
    assert.deepEqual(result, {
      accepted: 1,
      duplicates: 0,
      rejected: garbage.length,
      reasons: {
        'not-an-object': 4,
        'invalid-ts': 4,
        'ts-in-future': 1,
        'ts-too-old': 1,
        'invalid-cpu_percent': 4,
        'invalid-load1': 1,
        'mem_used-above-total': 1,
        'swap_used-above-total': 1,
        'invalid-net_rx_bps': 1,
        'invalid-processes': 1,
        'invalid-uptime_s': 1,
        'invalid-disks': 1,
      },
    });
    assert.equal(count(f.db, 'metrics_raw'), 1);
    assert.equal(rows(f.db, 'metrics_raw')[0]!.ts, good.ts);
    assert.deepEqual(f.metrics.stats(), { accepted: 1, duplicates: 0, rejected: garbage.length });
  });

  it('refuses a message that is not a list, and samples beyond 500 in one message', () => {
    for (const junk of [null, undefined, 'x', { samples: [] }, 7]) {
      assert.deepEqual(f.metrics.ingest('web-1', junk, T0), { accepted: 0, duplicates: 0, rejected: 1, reasons: { 'not-an-array': 1 } });
    }
    const many = Array.from({ length: 510 }, (_, i) => sample(T0 - (510 - i) * S));
    const result = f.metrics.ingest('web-1', many, T0);
    assert.equal(result.accepted, 500);
    assert.deepEqual(result.reasons, { 'too-many-samples': 10 });
    assert.equal(count(f.db, 'metrics_raw'), 500);
  });

  it('keeps what it can of a sample: bad disk entries are dropped, unknown fields ignored, tiny CPU overshoot clamped', () => {
    const odd = {
      ...sample(T0 - S, { cpu_percent: 100.4 }),
      extra: 'ignored',
      disks: [{ mount: '/', used: 1, total: 2 }, { mount: '', used: 1, total: 2 }, { mount: '/x', used: 3, total: 2 }, 'sdb', { mount: '/y', used: -1, total: 2 }],
    };
    const result = f.metrics.ingest('web-1', [odd], T0);
    assert.deepEqual(result, { accepted: 1, duplicates: 0, rejected: 0, reasons: { 'disk-entries-dropped': 4 } });
    const latest = f.metrics.latest('web-1')!;
    assert.deepEqual(latest.sample.disks, [{ mount: '/', used: 1, total: 2 }]);
    assert.equal(latest.sample.cpu_percent, 100);
    assert.equal('extra' in latest.sample, false);
    // A missing disks list is an empty one.
    const { disks: _disks, ...noDisks } = sample(T0);
    assert.equal(f.metrics.ingest('web-1', [noDisks], T0).accepted, 1);
    assert.deepEqual(f.metrics.latest('web-1')!.sample.disks, []);
  });

  it('accepts a sample up to a day ahead and up to 48 h behind, and rounds ts to whole ms', () => {
    const result = f.metrics.ingest('web-1', [sample(T0 + DAY), sample(T0 - 48 * HOUR + S), sample(T0 - 0.4)], T0);
    assert.equal(result.accepted, 3);
    assert.deepEqual(
      rows(f.db, 'metrics_raw').map((r) => r.ts),
      [T0 - 48 * HOUR + S, T0, T0 + DAY],
    );
  });

  it('ignores a sample sent twice (same ts), in one message or across messages, and does not count it in rollups', () => {
    const a = sample(T0 - 30 * S, { cpu_percent: 10 });
    const b = sample(T0 - 20 * S, { cpu_percent: 20 });
    assert.deepEqual(f.metrics.ingest('web-1', [a, b, a], T0), { accepted: 2, duplicates: 1, rejected: 0, reasons: {} });
    assert.deepEqual(f.metrics.ingest('web-1', [b, { ...b, cpu_percent: 90 }], T0), { accepted: 0, duplicates: 2, rejected: 0, reasons: {} });
    const minute = rows(f.db, 'metrics_1m');
    assert.equal(minute.length, 1);
    assert.equal(minute[0]!.samples, 2);
    assert.equal(minute[0]!.cpu_percent, 15);
  });

  it('does not throw for an agent without a record (deleted while its samples travelled)', () => {
    const result = f.metrics.ingest('ghost', [sample(T0), sample(T0 - S)], T0);
    assert.deepEqual(result, { accepted: 0, duplicates: 0, rejected: 2, reasons: { 'unknown-agent': 2 } });
    assert.equal(f.metrics.latest('ghost'), undefined);
    assert.equal(count(f.db, 'metrics_raw'), 0);
  });
});

describe('rollups', () => {
  let f: Fixture;
  beforeEach(() => {
    f = fixture();
  });
  afterEach(() => f.db.close());

  const H = T0 - 2 * HOUR; // an hour boundary

  it('average each minute and each hour, keep sample counts, CPU maximum and the newest readings', () => {
    f.metrics.ingest(
      'web-1',
      [
        sample(H + 0 * S, { cpu_percent: 10, mem_used: 1000, uptime_s: 100 }),
        sample(H + 10 * S, { cpu_percent: 20, mem_used: 2000, uptime_s: 110 }),
        sample(H + 20 * S, { cpu_percent: 30, mem_used: 3000, uptime_s: 120, disks: [{ mount: '/', used: 300, total: 1000 }] }),
        sample(H + MIN, { cpu_percent: 40, load1: 1 }),
        sample(H + MIN + 30 * S, { cpu_percent: 60, load1: 3 }),
        sample(H + HOUR + 5 * S, { cpu_percent: 90 }), // the next hour
      ],
      T0,
    );
    const minutes = rows(f.db, 'metrics_1m');
    assert.deepEqual(
      minutes.map((r) => [r.ts, r.samples, r.cpu_percent, r.cpu_max, r.mem_used, r.load1, r.last_ts, r.uptime_s]),
      [
        [H, 3, 20, 30, 2000, 0.5, H + 20 * S, 120],
        [H + MIN, 2, 50, 60, 1000, 2, H + MIN + 30 * S, 3600],
        [H + HOUR, 1, 90, 90, 1000, 0.5, H + HOUR + 5 * S, 3600],
      ],
    );
    assert.deepEqual(JSON.parse(minutes[0]!.disks as string), [{ mount: '/', used: 300, total: 1000 }]);
    const hours = rows(f.db, 'metrics_1h');
    assert.deepEqual(
      hours.map((r) => [r.ts, r.samples, r.cpu_percent, r.cpu_max, r.load1]),
      [
        [H, 5, 32, 60, (0.5 * 3 + 1 + 3) / 5],
        [H + HOUR, 1, 90, 90, 0.5],
      ],
    );
  });

  it('take late samples (after an outage, out of order, in later messages) into the right buckets', () => {
    // Live samples, then the agent reconnects and sends what it buffered during the outage.
    f.metrics.ingest('web-1', [sample(H + 10 * S, { cpu_percent: 10 }), sample(H + 50 * MIN, { cpu_percent: 70, uptime_s: 9000 })], T0);
    f.metrics.ingest(
      'web-1',
      [
        sample(H + 40 * S, { cpu_percent: 30, uptime_s: 40, disks: [] }), // same minute as the first, newer
        sample(H + 5 * S, { cpu_percent: 80, uptime_s: 5, disks: [] }), // same minute, older than both
        sample(H + 20 * MIN, { cpu_percent: 40 }),
      ],
      T0,
    );
    const minute0 = rows(f.db, 'metrics_1m')[0]!;
    assert.equal(minute0.ts, H);
    assert.equal(minute0.samples, 3);
    assert.equal(minute0.cpu_percent, 40); // (10 + 30 + 80) / 3
    assert.equal(minute0.cpu_max, 80);
    // Readings come from the newest sample in the bucket, not the last to arrive.
    assert.equal(minute0.last_ts, H + 40 * S);
    assert.equal(minute0.uptime_s, 40);
    assert.deepEqual(JSON.parse(minute0.disks as string), []);
    assert.deepEqual(
      rows(f.db, 'metrics_1m').map((r) => r.ts),
      [H, H + 20 * MIN, H + 50 * MIN],
    );
    const hour = rows(f.db, 'metrics_1h');
    assert.equal(hour.length, 1);
    assert.equal(hour[0]!.samples, 5);
    assert.equal(hour[0]!.cpu_percent, (10 + 70 + 30 + 80 + 40) / 5);
    assert.equal(hour[0]!.uptime_s, 9000);
    // The latest stays the newest by ts, although older samples arrived after it.
    assert.equal(f.metrics.latest('web-1')!.sample.ts, iso(H + 50 * MIN));
  });

  it('give the same answer whichever way the samples are split into messages', () => {
    const all = Array.from({ length: 200 }, (_, i) => sample(H + i * 37 * S, { cpu_percent: (i * 7) % 100, net_rx_bps: i * 1000 }));
    f.metrics.ingest('web-1', all, T0);
    const g = fixture();
    try {
      const shuffled = [...all].reverse();
      for (let i = 0; i < shuffled.length; i += 7) g.metrics.ingest('web-1', shuffled.slice(i, i + 7), T0);
      for (const table of ['metrics_1m', 'metrics_1h']) {
        const a = rows(f.db, table);
        const b = rows(g.db, table);
        assert.equal(a.length, b.length);
        for (const [i, row] of a.entries()) {
          for (const [k, v] of Object.entries(row)) {
            if (typeof v === 'number') assert.ok(Math.abs(v - (b[i]![k] as number)) < 1e-6, `${table} ${k}: ${v} vs ${String(b[i]![k])}`);
            else assert.equal(v, b[i]![k]);
          }
        }
      }
    } finally {
      g.db.close();
    }
  });
});

describe('planHistory (resolution and step)', () => {
  const plan = (q: Parameters<typeof planHistory>[0]) => {
    const p = planHistory(q, T0);
    return [p.resolution, p.stepS];
  };
  const ago = (ms: number) => iso(T0 - ms);

  it('defaults to the last hour from raw samples at 10 s', () => {
    const p = planHistory({}, T0);
    assert.deepEqual([p.resolution, p.stepS, p.since, p.until], ['raw', 10, T0 - HOUR, T0]);
    assert.deepEqual(planHistory({ until: ago(DAY) }, T0).since, T0 - DAY - HOUR);
    assert.deepEqual(planHistory({ since: ago(2 * HOUR) }, T0).until, T0);
  });

  it('reads raw samples for steps under a minute in a window inside the last 48 h', () => {
    assert.deepEqual(plan({ since: ago(30 * MIN), step: 1 }), ['raw', 1]);
    assert.deepEqual(plan({ since: ago(HOUR), step: 59 }), ['raw', 59]);
    assert.deepEqual(plan({ since: ago(47 * HOUR), until: ago(46 * HOUR), step: 30 }), ['raw', 30]);
  });

  it('reads 1-minute rollups for steps under an hour, or when raw samples are gone', () => {
    assert.deepEqual(plan({ since: ago(HOUR), step: 60 }), ['1m', 60]);
    assert.deepEqual(plan({ since: ago(HOUR), step: 3599 }), ['1m', 3600]);
    assert.deepEqual(plan({ since: ago(3 * DAY), until: ago(3 * DAY - HOUR), step: 10 }), ['1m', 60]);
    assert.deepEqual(plan({ since: ago(3 * DAY), until: ago(3 * DAY - HOUR), step: 90 }), ['1m', 120]);
    assert.deepEqual(plan({ since: ago(6 * HOUR) }), ['1m', 60]);
    assert.deepEqual(plan({ since: ago(7 * DAY) }), ['1m', 1800]);
  });

  it('reads 1-hour rollups for steps of an hour and more, or windows older than 14 days', () => {
    assert.deepEqual(plan({ since: ago(HOUR), step: 3600 }), ['1h', 3600]);
    assert.deepEqual(plan({ since: ago(20 * DAY), until: ago(19 * DAY), step: 60 }), ['1h', 3600]);
    assert.deepEqual(plan({ since: ago(20 * DAY), until: ago(19 * DAY), step: 5400 }), ['1h', 7200]);
    assert.deepEqual(plan({ since: ago(30 * DAY) }), ['1h', 7200]);
    assert.deepEqual(plan({ since: ago(365 * DAY), step: 86400 }), ['1h', 86400]);
  });

  it('raises the step so that at most 2000 points come back', () => {
    assert.deepEqual(plan({ since: ago(48 * HOUR), step: 1 }), ['1m', 120]);
    assert.deepEqual(plan({ since: ago(HOUR), step: 1 }), ['raw', 2]);
    assert.deepEqual(plan({ since: ago(365 * DAY), step: 3600 }), ['1h', 21600]);
    for (const [since, until, step] of [
      [T0 - 10 * 365 * DAY, T0, 1],
      [T0 - 2001 * S - 1, T0, 1],
      [T0 - 13 * DAY, T0 + 7, 1],
      [T0 - 123_456_789, T0 - 1000, 7],
    ] as const) {
      const p = planHistory({ since: iso(since), until: iso(until), step }, T0);
      assert.ok(Math.ceil((p.until - p.since) / (p.stepS * S)) <= MAX_POINTS, `${p.stepS} s over ${until - since} ms`);
    }
  });

  it('refuses since at or after until', () => {
    assert.throws(() => planHistory({ since: ago(0), until: ago(0) }, T0), { status: 400, message: 'since must be before until' });
    assert.throws(() => planHistory({ since: ago(0), until: ago(HOUR) }, T0), { status: 400 });
    assert.throws(() => planHistory({ since: iso(T0 + MIN) }, T0), { status: 400 }); // since in the future, until now
  });
});

describe('MetricsService.history', () => {
  let f: Fixture;
  beforeEach(() => {
    f = fixture(['web-1', 'db-1']);
  });
  afterEach(() => f.db.close());

  it('averages raw samples into step buckets aligned to the step, leaving out empty ones', () => {
    // 60 samples, one every 10 s over the last 10 minutes, cpu = index.
    const start = T0 - 10 * MIN;
    f.metrics.ingest('web-1', Array.from({ length: 60 }, (_, i) => sample(start + i * 10 * S, { cpu_percent: i, mem_used: i * 10 })), T0);
    const h = f.metrics.history('web-1', { since: iso(start), step: 30 });
    assert.equal(h.resolution, 'raw');
    assert.equal(h.step_s, 30);
    assert.equal(h.since, iso(start));
    assert.equal(h.until, iso(T0));
    assert.equal(h.points.length, 20);
    assert.deepEqual(h.points[0], { ...sample(start, { cpu_percent: 1, mem_used: 10 }), ts: iso(start) });
    assert.deepEqual(
      h.points.map((p) => p.cpu_percent),
      Array.from({ length: 20 }, (_, i) => i * 3 + 1),
    );
    // Since falls between buckets: the answer starts at the bucket holding it.
    const mid = f.metrics.history('web-1', { since: iso(start + 45 * S), until: iso(start + 90 * S), step: 30 });
    assert.equal(mid.since, iso(start + 30 * S));
    assert.deepEqual(
      mid.points.map((p) => [p.ts, p.cpu_percent]),
      [
        [iso(start + 30 * S), 4],
        [iso(start + 60 * S), 7],
      ],
    );
    // A gap in the data is a gap in the points.
    f.metrics.ingest('db-1', [sample(start, { cpu_percent: 5 }), sample(start + 5 * MIN, { cpu_percent: 7 })], T0);
    assert.deepEqual(
      f.metrics.history('db-1', { since: iso(start), step: 10 }).points.map((p) => p.ts),
      [iso(start), iso(start + 5 * MIN)],
    );
  });

  it('downsamples rollups weighted by their sample counts', () => {
    const H = T0 - 3 * HOUR;
    f.metrics.ingest(
      'web-1',
      [
        sample(H, { cpu_percent: 10 }), // minute 0: one sample
        sample(H + MIN, { cpu_percent: 50 }), // minute 1: three samples
        sample(H + MIN + 10 * S, { cpu_percent: 50 }),
        sample(H + MIN + 20 * S, { cpu_percent: 50, disks: [{ mount: '/data', used: 1, total: 9 }], uptime_s: 7 }),
        sample(H + 2 * MIN, { cpu_percent: 20 }),
      ],
      T0,
    );
    const h = f.metrics.history('web-1', { since: iso(H), until: iso(H + 5 * MIN), step: 120 });
    assert.equal(h.resolution, '1m');
    assert.deepEqual(
      h.points.map((p) => [p.ts, p.cpu_percent, p.uptime_s, p.disks]),
      [
        [iso(H), 40, 7, [{ mount: '/data', used: 1, total: 9 }]], // (10 + 3 * 50) / 4, not (10 + 50) / 2
        [iso(H + 2 * MIN), 20, 3600, [{ mount: '/', used: 100, total: 1000 }]],
      ],
    );
    const hourly = f.metrics.history('web-1', { since: iso(H), until: iso(T0), step: 3600 });
    assert.equal(hourly.resolution, '1h');
    assert.deepEqual(
      hourly.points.map((p) => [p.ts, p.cpu_percent]),
      [[iso(H), (10 + 150 + 20) / 5]],
    );
  });

  it('answers from older rollups once raw samples are past their retention', () => {
    const old = T0 - 5 * DAY;
    f.metrics.ingest('web-1', [sample(old, { cpu_percent: 10 }), sample(old + 30 * S, { cpu_percent: 30 })], old + MIN);
    f.metrics.applyRetention(T0);
    assert.equal(count(f.db, 'metrics_raw'), 0);
    const h = f.metrics.history('web-1', { since: iso(old), until: iso(old + HOUR), step: 10 });
    assert.equal(h.resolution, '1m');
    assert.equal(h.step_s, 60);
    assert.deepEqual(
      h.points.map((p) => [p.ts, p.cpu_percent]),
      [[iso(old), 20]],
    );
  });

  it('rounds averages sensibly', () => {
    f.metrics.ingest('web-1', [sample(T0 - 30 * S, { cpu_percent: 1, mem_used: 1, load1: 1 }), sample(T0 - 20 * S, { cpu_percent: 2, mem_used: 2, load1: 2 }), sample(T0 - 10 * S, { cpu_percent: 2, mem_used: 2, load1: 2 })], T0);
    const [p] = f.metrics.history('web-1', { since: iso(T0 - 30 * S), step: 30 }).points;
    assert.equal(p!.cpu_percent, 1.67);
    assert.equal(p!.load1, 1.67);
    assert.equal(p!.mem_used, 2);
  });

  it('has no points for an agent without samples, or one that does not exist', () => {
    for (const node of ['db-1', 'nobody']) {
      const h = f.metrics.history(node, {});
      assert.deepEqual(h, { node_id: node, since: iso(T0 - HOUR), until: iso(T0), resolution: 'raw', step_s: 10, points: [] });
    }
    assert.equal(f.metrics.latest('nobody'), undefined);
  });

  it('keeps agents apart', () => {
    f.metrics.ingest('web-1', [sample(T0 - MIN, { cpu_percent: 10 })], T0);
    f.metrics.ingest('db-1', [sample(T0 - MIN, { cpu_percent: 90 })], T0);
    assert.deepEqual(
      f.metrics.history('web-1').points.map((p) => p.cpu_percent),
      [10],
    );
    assert.deepEqual(
      f.metrics.history('db-1').points.map((p) => p.cpu_percent),
      [90],
    );
  });
});

describe('retention', () => {
  let f: Fixture;
  beforeEach(() => {
    f = fixture(['web-1', 'db-1']);
  });
  afterEach(() => f.db.close());

  // Samples of these ages, each ingested when it was fresh.
  const ages = [HOUR, 3 * DAY, 20 * DAY, 400 * DAY];
  function seed(node: string) {
    for (const age of [...ages].reverse()) f.metrics.ingest(node, [sample(T0 - age)], T0 - age);
  }

  it('prunes raw samples after 48 h, 1-minute rollups after 14 days, 1-hour rollups after a year', () => {
    seed('web-1');
    seed('db-1');
    assert.deepEqual(f.metrics.applyRetention(T0), { raw: 6, '1m': 4, '1h': 2 });
    assert.deepEqual(rows(f.db, 'metrics_raw').map((r) => r.ts), [T0 - HOUR]);
    assert.deepEqual(rows(f.db, 'metrics_1m').map((r) => r.ts), [T0 - 3 * DAY, T0 - HOUR]);
    assert.deepEqual(rows(f.db, 'metrics_1h').map((r) => r.ts), [T0 - 20 * DAY, T0 - 3 * DAY, T0 - HOUR]);
    assert.deepEqual(rows(f.db, 'metrics_raw', 'db-1').map((r) => r.ts), [T0 - HOUR]);
    assert.deepEqual(f.metrics.applyRetention(T0), { raw: 0, '1m': 0, '1h': 0 });
    // The latest sample is kept however old it is.
    assert.equal(count(f.db, 'metrics_latest'), 2);
  });

  it('runs at start and on a timer (see periodic.test.ts); stop() ends it', async () => {
    seed('web-1');
    f.clock.now = T0;
    const errors: unknown[] = [];
    f.metrics.start((err) => errors.push(err), 20);
    try {
      assert.equal(count(f.db, 'metrics_raw'), 1);
      f.clock.now = T0 + 2 * DAY;
      await new Promise((r) => setTimeout(r, 80));
      assert.equal(count(f.db, 'metrics_raw'), 0, 'the timer ran again with the new time');
      assert.deepEqual(errors, []);
    } finally {
      f.metrics.stop();
    }
    f.metrics.ingest('web-1', [sample(T0 + 2 * DAY - 49 * HOUR)], T0 + 2 * DAY - 48 * HOUR);
    f.clock.now = T0 + 4 * DAY;
    await new Promise((r) => setTimeout(r, 60));
    assert.equal(count(f.db, 'metrics_raw'), 1, 'stopped: nothing pruned any more');
  });

  it('reports failures to onError instead of throwing from the timer', () => {
    f.db.close();
    const errors: unknown[] = [];
    f.metrics.start((err) => errors.push(err), 1000);
    f.metrics.stop();
    assert.equal(errors.length, 1);
    f.db = freshDb(); // for afterEach
  });
});

describe('latest', () => {
  it('is the newest sample by ts, with the time it was received, and survives reopening the database', () => {
    const file = path.join(dir, 'latest.sqlite');
    let db = freshDb(file);
    addAgent(db, 'web-1');
    addAgent(db, 'db-1');
    let metrics = new MetricsService(new MetricsRepository(db), { now: () => T0 });
    assert.equal(metrics.latest('web-1'), undefined);
    metrics.ingest('web-1', [sample(T0 - 20 * S, { cpu_percent: 1 }), sample(T0 - 10 * S, { cpu_percent: 2 })], T0 - 5 * S);
    metrics.ingest('web-1', [sample(T0 - 30 * S, { cpu_percent: 3 })], T0); // late, older: not the latest
    const expected = { node_id: 'web-1', received_at: iso(T0 - 5 * S), sample: { ...sample(T0 - 10 * S, { cpu_percent: 2 }), ts: iso(T0 - 10 * S) } };
    assert.deepEqual(metrics.latest('web-1'), expected);
    db.close();

    db = freshDb(file);
    metrics = new MetricsService(new MetricsRepository(db), { now: () => T0 });
    assert.deepEqual(metrics.latest('web-1'), expected);
    assert.equal(metrics.latest('db-1'), undefined);

    // An agent's rows go with its record; forget() clears the copy in memory.
    db.prepare('DELETE FROM agents WHERE node_id = ?').run('web-1');
    for (const table of ['metrics_raw', 'metrics_1m', 'metrics_1h', 'metrics_latest']) assert.equal(count(db, table), 0, table);
    metrics.forget('web-1');
    assert.equal(metrics.latest('web-1'), undefined);
    db.close();
  });
});

describe('GET /agents/:node_id/metrics and /metrics/latest', () => {
  let f: Fixture;
  let app: FastifyInstance;

  before(async () => {
    f = fixture(['web-1', 'db-1']);
    f.clock.now = Date.now();
    const known = new Set(['web-1', 'db-1']);
    const services = {
      metrics: f.metrics,
      agents: {
        require(nodeId: string) {
          if (!known.has(nodeId)) throw new NotFound(`agent ${nodeId} does not exist`, 'agent-not-found');
        },
      },
    } as unknown as Services;
    app = Fastify({ logger: false }).withTypeProvider<TypeBoxTypeProvider>();
    app.setValidatorCompiler(validatorCompiler);
    app.addSchema(Problem); // as registerOpenApi does: routes refer to it for their error answers
    registerProblemHandlers(app);
    await app.register(metricsRoutes, { services });
    await app.ready();
    const now = f.clock.now;
    f.metrics.ingest('web-1', [sample(now - 20 * S, { cpu_percent: 10 }), sample(now - 10 * S, { cpu_percent: 30 })], now);
  });
  after(async () => {
    await app.close();
    f.db.close();
  });

  const get = (url: string) => app.inject({ method: 'GET', url });
  function assertProblem(res: Awaited<ReturnType<typeof get>>, status: number, code: string) {
    assert.equal(res.statusCode, status, res.body);
    assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
    assert.equal(res.json().code, code, res.body);
  }

  it('answers the history', async () => {
    const res = await get('/agents/web-1/metrics?step=60');
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.node_id, 'web-1');
    assert.equal(body.resolution, '1m');
    assert.equal(body.step_s, 60);
    assert.ok(body.points.length >= 1 && body.points.length <= 2);
    assert.deepEqual(Object.keys(body.points[0]).sort(), Object.keys(sample(0)).sort());
    const raw = (await get('/agents/web-1/metrics')).json();
    assert.equal(raw.resolution, 'raw');
    assert.deepEqual(raw.points.map((p: { cpu_percent: number }) => p.cpu_percent).reduce((a: number, b: number) => a + b, 0), 40);
  });

  it('takes since and until', async () => {
    const since = new Date(f.clock.now - 2 * HOUR).toISOString();
    const until = new Date(f.clock.now - HOUR).toISOString();
    const res = await get(`/agents/web-1/metrics?since=${since}&until=${until}&step=10`);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().until, until);
    assert.deepEqual(res.json().points, []);
  });

  it('refuses since at or after until, and bad query fields', async () => {
    const t = new Date(f.clock.now - HOUR).toISOString();
    assertProblem(await get(`/agents/web-1/metrics?since=${t}&until=${t}`), 400, 'bad-request');
    assertProblem(await get('/agents/web-1/metrics?step=0'), 400, 'validation-failed');
    assertProblem(await get('/agents/web-1/metrics?step=86401'), 400, 'validation-failed');
    assertProblem(await get('/agents/web-1/metrics?since=yesterday'), 400, 'validation-failed');
    const unknown = await get('/agents/web-1/metrics?resolution=raw');
    assertProblem(unknown, 400, 'validation-failed');
    assert.deepEqual(unknown.json().errors, [{ field: 'querystring.resolution', message: 'unknown field' }]);
    assertProblem(await get('/agents/Web_1!/metrics'), 400, 'validation-failed');
  });

  it('answers 404 for an agent that does not exist', async () => {
    assertProblem(await get('/agents/nobody/metrics'), 404, 'agent-not-found');
    assertProblem(await get('/agents/nobody/metrics/latest'), 404, 'agent-not-found');
  });

  it('answers the latest sample, or 404 no-metrics before the first', async () => {
    const res = await get('/agents/web-1/metrics/latest');
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().node_id, 'web-1');
    assert.equal(res.json().sample.cpu_percent, 30);
    assert.equal(res.json().sample.ts, new Date(f.clock.now - 10 * S).toISOString());
    assertProblem(await get('/agents/db-1/metrics/latest'), 404, 'no-metrics');
  });
});
