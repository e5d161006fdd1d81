// What the machine runs on: a hypervisor or container technology, or "none" for bare
// metal when the OS says so. Left out when nothing answers rather than guessed.
import { existsSync, readFileSync } from 'node:fs';
import { run } from './run.js';

function readTrimmed(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** DMI product and vendor strings that name a hypervisor, matched case-insensitively. */
const DMI_HINTS: [RegExp, string][] = [
  [/kvm/i, 'kvm'],
  [/qemu/i, 'qemu'],
  [/virtualbox|innotek/i, 'oracle'],
  [/vmware/i, 'vmware'],
  // Hyper-V's product name; "Microsoft Corporation" alone is also the vendor of Surface laptops.
  [/^virtual machine$/i, 'microsoft'],
  [/\bxen\b|hvm domu/i, 'xen'],
  [/parallels/i, 'parallels'],
  [/bochs/i, 'bochs'],
  // Cloud vendors (Amazon EC2, Google) are left out: their bare-metal instances carry the same strings.
];

export async function detectVirtualization(): Promise<string | undefined> {
  if (process.platform !== 'linux') return undefined;
  // systemd-detect-virt knows the most cases and reports containers before the VM under them.
  const tool = await run('systemd-detect-virt', [], 1000);
  const answer = tool?.stdout.trim();
  if (answer && /^[a-z0-9_-]+$/.test(answer)) return answer;
  // Without systemd: container markers first (a container's DMI data is its host's).
  if (existsSync('/.dockerenv')) return 'docker';
  if (existsSync('/run/.containerenv')) return 'podman';
  const container = readTrimmed('/run/systemd/container');
  if (container) return container;
  for (const file of ['/sys/class/dmi/id/product_name', '/sys/class/dmi/id/sys_vendor']) {
    const value = readTrimmed(file);
    if (!value) continue;
    for (const [pattern, name] of DMI_HINTS) if (pattern.test(value)) return name;
  }
  return undefined;
}
