// Synthetic metrics samples for buffer and frame tests (real ones come from metrics.test.ts).
import type { MetricsSample } from '../../../common/protocol.js';

/** A sample with `disks` mounts; many disks make a large sample. */
export function fakeSample(ts: number, disks = 1): MetricsSample {
  return {
    ts,
    cpu_percent: 12.5,
    load1: 0.1,
    load5: 0.2,
    load15: 0.3,
    mem_used: 1e9,
    mem_total: 4e9,
    swap_used: 0,
    swap_total: 0,
    disks: Array.from({ length: disks }, (_, i) => ({ mount: `/mnt/disk-with-a-longish-name-${i}`, used: 123456789012, total: 987654321098 })),
    net_rx_bps: 1000,
    net_tx_bps: 2000,
    processes: 150,
    uptime_s: 12345,
  };
}
