// Boot time as a stable value: attributes are compared to decide whether to re-send them,
// so a boot time that wobbles by a second between reads would re-send them every minute.
import { readFileSync } from 'node:fs';
import os from 'node:os';

export function bootTime(): string {
  if (process.platform === 'linux') {
    try {
      // btime in /proc/stat is the kernel's own record, in whole seconds since the epoch.
      const m = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
      if (m) return new Date(Number(m[1]) * 1000).toISOString();
    } catch {
      // fall back below
    }
  }
  return new Date(Math.round((Date.now() - os.uptime() * 1000) / 1000) * 1000).toISOString();
}
