// One metrics sample per call (DESIGN.md "Metrics"). CPU and network are rates, so the
// collector keeps the previous counters; it primes them when made, and the first sample
// therefore covers the time since then rather than since boot.
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import type { MetricsSample } from '../../common/protocol.js';
import { listMounts, measureMounts } from '../system/mounts.js';
import { run } from '../system/run.js';
import { parseMeminfo, parseNetDev, parseProcStatCpu, type CpuTimes, type NetTotals } from './proc.js';

const linux = process.platform === 'linux';

function readProc(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** Fallback for systems without /proc/stat: the per-core times Node reports. */
function cpuTimesFromOs(): CpuTimes {
  let idle = 0;
  let total = 0;
  for (const c of os.cpus()) {
    idle += c.times.idle;
    total += c.times.user + c.times.nice + c.times.sys + c.times.idle + c.times.irq;
  }
  return { idle, total };
}

function cpuTimes(): CpuTimes {
  const text = linux ? readProc('/proc/stat') : null;
  return (text && parseProcStatCpu(text)) || cpuTimesFromOs();
}

function netTotals(): NetTotals | null {
  const text = linux ? readProc('/proc/net/dev') : null;
  return text ? parseNetDev(text) : null;
}

async function memory(): Promise<Pick<MetricsSample, 'mem_used' | 'mem_total' | 'swap_used' | 'swap_total'>> {
  const text = linux ? readProc('/proc/meminfo') : null;
  if (text) {
    const m = parseMeminfo(text);
    const total = m.MemTotal ?? os.totalmem();
    // MemAvailable (Linux >= 3.14) is what could be used without swapping; cache is not "used".
    const available = m.MemAvailable ?? (m.MemFree ?? 0) + (m.Buffers ?? 0) + (m.Cached ?? 0);
    return { mem_total: total, mem_used: total - available, swap_total: m.SwapTotal ?? 0, swap_used: (m.SwapTotal ?? 0) - (m.SwapFree ?? 0) };
  }
  const swap = process.platform === 'darwin' ? await darwinSwap() : { swap_total: 0, swap_used: 0 };
  return { mem_total: os.totalmem(), mem_used: os.totalmem() - os.freemem(), ...swap };
}

/** macOS: `sysctl -n vm.swapusage` prints "total = 1024.00M  used = 12.25M  free = ...". */
async function darwinSwap(): Promise<{ swap_total: number; swap_used: number }> {
  const out = (await run('sysctl', ['-n', 'vm.swapusage']))?.stdout ?? '';
  const size = (name: string) => {
    const m = new RegExp(`${name} = ([\\d.]+)([KMG])`).exec(out);
    return m ? Math.round(Number(m[1]) * { K: 1024, M: 1024 ** 2, G: 1024 ** 3 }[m[2] as 'K' | 'M' | 'G']) : 0;
  };
  return { swap_total: size('total'), swap_used: size('used') };
}

async function processCount(): Promise<number> {
  if (linux) {
    try {
      return readdirSync('/proc').filter((name) => /^\d+$/.test(name)).length;
    } catch {
      // fall through to ps
    }
  }
  const out = await run('ps', ['-A', '-o', 'pid='], 2000);
  return out ? out.stdout.split('\n').filter((l) => l.trim()).length : 0;
}

export class MetricsCollector {
  private cpu: CpuTimes;
  private net: NetTotals | null;
  private at: number;

  constructor(private readonly now: () => number = Date.now) {
    this.cpu = cpuTimes();
    this.net = netTotals();
    this.at = now();
  }

  async sample(): Promise<MetricsSample> {
    const [mem, disks, processes] = await Promise.all([memory(), measureMounts(listMounts()), processCount()]);
    const ts = this.now();
    const cpu = cpuTimes();
    const net = netTotals();
    const seconds = Math.max((ts - this.at) / 1000, 0.001);

    const dTotal = cpu.total - this.cpu.total;
    const dIdle = cpu.idle - this.cpu.idle;
    const cpuPercent = dTotal > 0 ? Math.min(100, Math.max(0, (100 * (dTotal - dIdle)) / dTotal)) : 0;
    // A counter that went down (interface removed, counter wrapped) gives 0 for that interval, not a negative rate.
    const rate = (now: number, before: number) => Math.max(0, (now - before) / seconds);
    const [load1, load5, load15] = os.loadavg() as [number, number, number];

    const previousNet = this.net;
    this.cpu = cpu;
    this.net = net ?? this.net;
    this.at = ts;
    return {
      ts,
      cpu_percent: Math.round(cpuPercent * 100) / 100,
      load1,
      load5,
      load15,
      ...mem,
      disks: disks.map((d) => ({ mount: d.mount, used: d.used_bytes, total: d.size_bytes })),
      net_rx_bps: net && previousNet ? Math.round(rate(net.rx, previousNet.rx)) : 0,
      net_tx_bps: net && previousNet ? Math.round(rate(net.tx, previousNet.tx)) : 0,
      processes,
      uptime_s: Math.floor(os.uptime()),
    };
  }
}
