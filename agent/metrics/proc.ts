// Parsers for the Linux /proc files the metrics come from. Pure functions of the text,
// so tests can feed them fixed input as well as the live files.

export interface CpuTimes {
  /** Jiffies spent idle (idle + iowait). */
  idle: number;
  total: number;
}

/** The aggregate "cpu" line of /proc/stat: user nice system idle iowait irq softirq steal [guest guest_nice]. */
export function parseProcStatCpu(text: string): CpuTimes | null {
  const line = text.split('\n').find((l) => l.startsWith('cpu '));
  if (!line) return null;
  const f = line.trim().split(/\s+/).slice(1).map(Number);
  if (f.length < 4 || f.some((n) => !Number.isFinite(n))) return null;
  // guest and guest_nice are already counted in user and nice, so only the first 8 add up.
  const total = f.slice(0, 8).reduce((a, b) => a + b, 0);
  return { idle: f[3]! + (f[4] ?? 0), total };
}

/** /proc/meminfo as bytes per key (the file says kB, meaning KiB). */
export function parseMeminfo(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const m = /^(\w+(?:\(\w+\))?):\s+(\d+)(?:\s+kB)?/.exec(line);
    if (m) out[m[1]!] = Number(m[2]) * (line.trimEnd().endsWith('kB') ? 1024 : 1);
  }
  return out;
}

export interface NetTotals {
  rx: number;
  tx: number;
}

/** Sums received and sent bytes over every interface of /proc/net/dev except loopback. */
export function parseNetDev(text: string): NetTotals {
  let rx = 0;
  let tx = 0;
  for (const line of text.split('\n')) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim();
    if (name === 'lo') continue;
    const f = line.slice(colon + 1).trim().split(/\s+/).map(Number);
    if (f.length < 9) continue;
    rx += f[0]!;
    tx += f[8]!;
  }
  return { rx, tx };
}
