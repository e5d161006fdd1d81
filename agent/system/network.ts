// Addresses and hardware addresses of the machine's real interfaces (loopback and other
// "internal" interfaces left out: they say nothing about where the machine is).
import os from 'node:os';

export function interfaceAddresses(): { ips: string[]; macs: string[] } {
  const v4 = new Set<string>();
  const v6 = new Set<string>();
  const macs = new Set<string>();
  for (const list of Object.values(os.networkInterfaces())) {
    for (const a of list ?? []) {
      if (a.internal) continue;
      (a.family === 'IPv4' ? v4 : v6).add(a.address);
      if (a.mac && a.mac !== '00:00:00:00:00:00') macs.add(a.mac.toLowerCase());
    }
  }
  // IPv4 first: it is what people type and what discovery uses.
  return { ips: [...[...v4].sort(), ...[...v6].sort()], macs: [...macs].sort() };
}
