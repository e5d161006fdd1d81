import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { describe, it } from 'node:test';
import { collectAttributes } from '../../agent/attributes.js';
import { MetricsCollector } from '../../agent/metrics/collector.js';
import { parseMeminfo, parseNetDev, parseProcStatCpu } from '../../agent/metrics/proc.js';

const linux = process.platform === 'linux';

function busy(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end) Math.sqrt(Math.random());
}

describe('MetricsCollector on this machine', () => {
  it('takes samples with every field DESIGN.md lists, in sane ranges', async () => {
    const collector = new MetricsCollector();
    busy(250);
    const first = await collector.sample();
    await new Promise((r) => setTimeout(r, 100));
    const second = await collector.sample();
    for (const s of [first, second]) {
      assert.ok(s.cpu_percent >= 0 && s.cpu_percent <= 100, `cpu_percent ${s.cpu_percent}`);
      assert.ok(s.load1 >= 0 && s.load5 >= 0 && s.load15 >= 0);
      assert.ok(s.mem_used > 0 && s.mem_used <= s.mem_total);
      assert.ok(s.swap_used >= 0 && s.swap_used <= s.swap_total);
      assert.ok(s.net_rx_bps >= 0 && s.net_tx_bps >= 0);
      assert.ok(s.processes > 0);
      assert.ok(Math.abs(s.uptime_s - os.uptime()) < 5);
      for (const d of s.disks) assert.ok(d.used >= 0 && d.used <= d.total, JSON.stringify(d));
    }
    assert.ok(second.ts > first.ts);
    // The busy loop kept one core at work during the first interval.
    assert.ok(first.cpu_percent > 5, `cpu_percent ${first.cpu_percent} after a busy loop`);
  });

  it('reports memory and swap as /proc/meminfo says', { skip: !linux && 'Linux only' }, async () => {
    const s = await new MetricsCollector().sample();
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(readFileSync('/proc/meminfo', 'utf8'))![1]) * 1024;
    assert.equal(s.mem_total, kb('MemTotal'));
    assert.ok(Math.abs(s.mem_used - (kb('MemTotal') - kb('MemAvailable'))) < 256 * 1024 * 1024, 'mem_used = MemTotal - MemAvailable (give or take what moved since)');
    assert.equal(s.swap_total, kb('SwapTotal'));
  });

  it('counts processes from /proc and measures the same mounts the attributes list', { skip: !linux && 'Linux only' }, async () => {
    const s = await new MetricsCollector().sample();
    const count = readdirSync('/proc').filter((n) => /^\d+$/.test(n)).length;
    assert.ok(Math.abs(s.processes - count) < 20, `${s.processes} vs ${count}`);
    const attributes = await collectAttributes({ agentVersion: 'x' });
    assert.deepEqual(
      s.disks.map((d) => d.mount),
      attributes.disks.map((d) => d.mount),
    );
    for (const d of s.disks) assert.equal(d.total, attributes.disks.find((a) => a.mount === d.mount)!.size_bytes);
  });
});

describe('/proc parsers', () => {
  it('parseProcStatCpu adds the first 8 fields and counts iowait as idle', () => {
    const t = parseProcStatCpu('cpu  100 10 50 800 40 0 5 0 20 0\ncpu0 1 2 3 4\nintr 1\n');
    assert.deepEqual(t, { idle: 840, total: 1005 });
    assert.equal(parseProcStatCpu('intr 1 2 3\n'), null);
  });

  it('parseMeminfo turns kB into bytes', () => {
    const m = parseMeminfo('MemTotal:       16000 kB\nMemAvailable:    4000 kB\nHugePages_Total:       0\nActive(anon):     12 kB\n');
    assert.deepEqual(m, { MemTotal: 16000 * 1024, MemAvailable: 4000 * 1024, HugePages_Total: 0, 'Active(anon)': 12 * 1024 });
  });

  it('parseNetDev sums every interface except loopback', () => {
    const text = [
      'Inter-|   Receive                                                |  Transmit',
      ' face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed',
      '    lo: 5000 10 0 0 0 0 0 0 5000 10 0 0 0 0 0 0',
      '  eth0: 1000 10 0 0 0 0 0 0 200 2 0 0 0 0 0 0',
      '  wlan0:300 3 0 0 0 0 0 0 40 1 0 0 0 0 0 0',
    ].join('\n');
    assert.deepEqual(parseNetDev(text), { rx: 1300, tx: 240 });
  });
});
