/** An attribute map (GET /agents/{id}/attributes) read defensively: agents of other versions may send more, less or other shapes. */
export interface ReadableAttributes {
  os?: string;
  distribution?: string;
  distributionVersion?: string;
  /** os-release PRETTY_NAME, e.g. "Debian GNU/Linux 12 (bookworm)". */
  distributionPrettyName?: string;
  kernel?: string;
  arch?: string;
  hostname?: string;
  fqdn?: string;
  ips: string[];
  macs: string[];
  cpuModel?: string;
  cpuCount?: number;
  memoryBytes?: number;
  disks: { mount: string; device?: string; fstype?: string; sizeBytes?: number }[];
  agentVersion?: string;
  bootTime?: string;
  virtualization?: string;
  /** Keys this page does not know, shown as they are. */
  extra: [string, unknown][];
}

const KNOWN = new Set([
  'os',
  'distribution',
  'distribution_version',
  'distribution_pretty_name',
  'kernel',
  'arch',
  'hostname',
  'fqdn',
  'ips',
  'macs',
  'cpu_model',
  'cpu_count',
  'memory_bytes',
  'disks',
  'agent_version',
  'boot_time',
  'virtualization',
]);

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

export function readAttributes(map: Record<string, unknown>): ReadableAttributes {
  const disks = Array.isArray(map.disks)
    ? map.disks
        .filter((d): d is Record<string, unknown> => typeof d === 'object' && d !== null && typeof (d as { mount?: unknown }).mount === 'string')
        .map((d) => ({ mount: d.mount as string, device: str(d.device), fstype: str(d.fstype), sizeBytes: num(d.size_bytes) }))
    : [];
  return {
    os: str(map.os),
    distribution: str(map.distribution),
    distributionVersion: str(map.distribution_version),
    distributionPrettyName: str(map.distribution_pretty_name),
    kernel: str(map.kernel),
    arch: str(map.arch),
    hostname: str(map.hostname),
    fqdn: str(map.fqdn),
    ips: strings(map.ips),
    macs: strings(map.macs),
    cpuModel: str(map.cpu_model),
    cpuCount: num(map.cpu_count),
    memoryBytes: num(map.memory_bytes),
    disks,
    agentVersion: str(map.agent_version),
    bootTime: str(map.boot_time),
    virtualization: str(map.virtualization),
    extra: Object.entries(map).filter(([k]) => !KNOWN.has(k)),
  };
}
