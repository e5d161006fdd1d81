// What the machine is (DESIGN.md "Attributes"): read from the OS each time, never
// invented. A value the OS does not give is left out, not filled with a guess.
import os from 'node:os';
import type { Attributes } from '../common/protocol.js';
import { bootTime } from './system/boot-time.js';
import { readFqdn } from './system/fqdn.js';
import { listMounts, measureMounts } from './system/mounts.js';
import { interfaceAddresses } from './system/network.js';
import { readOsRelease } from './system/os-release.js';
import { run } from './system/run.js';
import { detectVirtualization } from './system/virtualization.js';

async function distribution(): Promise<Pick<Attributes, 'distribution' | 'distribution_version' | 'distribution_pretty_name'>> {
  if (process.platform === 'darwin') {
    const version = (await run('sw_vers', ['-productVersion']))?.stdout.trim();
    return { distribution: 'macos', ...(version ? { distribution_version: version } : {}) };
  }
  const rel = readOsRelease();
  if (!rel) return {};
  return {
    ...(rel.ID ? { distribution: rel.ID } : {}),
    ...(rel.VERSION_ID ? { distribution_version: rel.VERSION_ID } : {}),
    ...(rel.PRETTY_NAME ? { distribution_pretty_name: rel.PRETTY_NAME } : {}),
  };
}

export interface AttributeOptions {
  agentVersion: string;
  /** Virtualization does not change while the machine runs, so it is looked up once and kept. */
  virtualization?: Promise<string | undefined>;
}

/** Collects every attribute; takes well under a second (helper tools have 1 s time limits). */
export async function collectAttributes(options: AttributeOptions): Promise<Attributes> {
  const [dist, fqdn, virtualization, disks] = await Promise.all([
    distribution(),
    readFqdn(),
    options.virtualization ?? detectVirtualization(),
    measureMounts(listMounts()),
  ]);
  const cpus = os.cpus();
  const { ips, macs } = interfaceAddresses();
  // Built in a fixed key order, so two reads of an unchanged machine serialise identically.
  return {
    os: process.platform,
    ...dist,
    kernel: os.release(),
    arch: os.arch(),
    hostname: os.hostname(),
    ...(fqdn ? { fqdn } : {}),
    ips,
    macs,
    cpu_model: cpus[0]?.model.trim() ?? '',
    cpu_count: cpus.length,
    memory_bytes: os.totalmem(),
    disks: disks.map((d) => ({ mount: d.mount, ...(d.device ? { device: d.device } : {}), ...(d.fstype ? { fstype: d.fstype } : {}), size_bytes: d.size_bytes })),
    agent_version: options.agentVersion,
    boot_time: bootTime(),
    ...(virtualization ? { virtualization } : {}),
  };
}
