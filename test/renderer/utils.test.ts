// The renderer's pure helpers (no DOM, no runes): tag rules, selector links, number
// formats and the chart data built from a metrics history.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MetricsHistory, MetricsPoint } from '../../common/schemas/metrics.js';
import { buildCharts, lastValue } from '../../renderer/src/lib/utils/metrics-chart.js';
import { formatBytes, formatOs } from '../../renderer/src/lib/utils/format.js';
import { selectorProblem } from '../../renderer/src/lib/utils/selector-check.js';
import { formatTagLines, parseTagLines, selectorFor, tagKeyProblem, tagValueProblem } from '../../renderer/src/lib/utils/tags.js';

describe('tag rules', () => {
  it('accepts the keys the orchestrator accepts', () => {
    for (const key of ['role', 'env', 'a', '0', 'team/web', 'k8s.io/zone', 'a-b_c.d', 'x'.repeat(63)]) assert.equal(tagKeyProblem(key), undefined, key);
  });

  it('names what is wrong with a bad key', () => {
    assert.equal(tagKeyProblem(''), 'enter a key');
    assert.match(tagKeyProblem('Role')!, /start with a lower-case letter or digit/);
    assert.match(tagKeyProblem('-role')!, /start with a lower-case letter or digit/);
    assert.match(tagKeyProblem('web server')!, /" " is not allowed/);
    assert.match(tagKeyProblem('a'.repeat(64))!, /at most 63/);
  });

  it('limits values to 255 characters', () => {
    assert.equal(tagValueProblem(''), undefined);
    assert.equal(tagValueProblem('v'.repeat(255)), undefined);
    assert.match(tagValueProblem('v'.repeat(256))!, /at most 255 .*256/);
  });

  it('reads key=value lines, reporting problems by line', () => {
    const parsed = parseTagLines('# comment\nenv = prod\n\nrole=web=1\nBad=x\nnoequals\nenv=staging\nempty=');
    assert.deepEqual(
      parsed.tags.map((t) => [t.line, t.key, t.value]),
      [
        [2, 'env', 'prod'],
        [4, 'role', 'web=1'],
        [5, 'Bad', 'x'],
        [7, 'env', 'staging'],
        [8, 'empty', ''],
      ],
    );
    assert.deepEqual(
      parsed.problems.map((p) => p.line),
      [5, 6, 7],
    );
    assert.match(parsed.problems[2]!.message, /already on line 2/);
  });

  it('writes tags back as sorted lines that parse to the same set', () => {
    const text = formatTagLines({ role: 'web', env: 'prod', a: '' });
    assert.equal(text, 'a=\nenv=prod\nrole=web');
    assert.deepEqual(parseTagLines(text).problems, []);
  });

  it('links a value with key=value when a selector can say it, else by key', () => {
    assert.equal(selectorFor('env', 'prod'), 'env=prod');
    assert.equal(selectorFor('env'), 'env');
    assert.equal(selectorFor('owner', 'Ada Lovelace'), 'owner');
    assert.equal(selectorProblem(selectorFor('zone', 'eu-west-1:a')), undefined);
  });
});

describe('selector check', () => {
  it('gives the parser position of the first problem', () => {
    assert.equal(selectorProblem(''), undefined);
    assert.equal(selectorProblem('role=web,env in (prod,staging),!legacy'), undefined);
    assert.deepEqual(selectorProblem('role=web,('), { reason: 'expected a tag key, found "("', position: 9 });
    assert.equal(selectorProblem('env in (a,')?.position, 10);
  });
});

describe('formats', () => {
  it('formats bytes in powers of 1024', () => {
    assert.equal(formatBytes(0), '0 B');
    assert.equal(formatBytes(1536), '1.5 KB');
    assert.equal(formatBytes(25 * 1024 ** 3), '25.0 GB');
    assert.equal(formatBytes(300 * 1024 ** 3), '300 GB');
  });

  it('names the OS from the distribution when there is one', () => {
    assert.equal(formatOs({ os: 'linux', distribution: 'debian', distribution_version: '12' }), 'Debian 12');
    assert.equal(formatOs({ os: 'linux', distribution: 'openSUSE', distribution_version: null }), 'openSUSE');
    assert.equal(formatOs({ os: 'linux', distribution: null, distribution_version: null }), 'Linux');
    assert.equal(formatOs({ os: null, distribution: null, distribution_version: null }), '—');
  });
});

describe('chart data', () => {
  const point = (ts: number, extra: Partial<MetricsPoint> = {}): MetricsPoint => ({
    ts: new Date(ts * 1000).toISOString(),
    cpu_percent: 10,
    load1: 1,
    load5: 2,
    load15: 3,
    mem_used: 100,
    mem_total: 400,
    swap_used: 0,
    swap_total: 0,
    disks: [{ mount: '/', used: 50, total: 200 }],
    net_rx_bps: 5,
    net_tx_bps: 6,
    processes: 90,
    uptime_s: 1000,
    ...extra,
  });
  const history = (points: MetricsPoint[]): MetricsHistory => ({
    node_id: 'web-01',
    since: new Date(0).toISOString(),
    until: new Date(10_000_000).toISOString(),
    resolution: 'raw',
    step_s: 10,
    points,
  });

  it('puts x in seconds and one value per point in each series', () => {
    const charts = buildCharts(history([point(1000), point(1010, { cpu_percent: 30 })]));
    assert.deepEqual(charts.cpu.x, [1000, 1010]);
    assert.deepEqual(charts.cpu.series[0]!.values, [10, 30]);
    assert.equal(lastValue(charts.cpu.series[0]), 30);
    assert.deepEqual(charts.disk.series.map((s) => [s.label, s.values]), [['/', [25, 25]]]);
    assert.deepEqual(
      charts.memory.series.map((s) => s.label),
      ['Used', 'Total'],
    );
  });

  it('breaks the lines where samples are missing', () => {
    const charts = buildCharts(history([point(1000), point(1010), point(1100)]));
    assert.deepEqual(charts.cpu.x, [1000, 1010, 1020, 1100]);
    assert.deepEqual(charts.cpu.series[0]!.values, [10, 10, null, 10]);
    assert.equal(lastValue({ label: 'x', color: 1, values: [1, null] }), 1);
  });

  it('charts a mount that appears later with gaps before it, and swap only when there is some', () => {
    const charts = buildCharts(history([point(1000), point(1010, { disks: [{ mount: '/', used: 1, total: 2 }, { mount: '/data', used: 3, total: 4 }], swap_total: 8 })]));
    assert.deepEqual(
      charts.disk.series.map((s) => [s.label, s.values]),
      [
        ['/', [25, 50]],
        ['/data', [null, 75]],
      ],
    );
    assert.ok(charts.memory.series.some((s) => s.label === 'Swap used'));
  });
});
