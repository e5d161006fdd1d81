// The machine's real filesystems: what /proc/mounts lists minus the kernel's pseudo
// filesystems, in-memory ones and network mounts. Attributes (sizes) and metrics
// (used/total) use this same list, so a disk chart always has a matching attribute.
import { readFileSync, statSync } from 'node:fs';
import { statfs } from 'node:fs/promises';

export interface Mount {
  mount: string;
  device: string;
  fstype: string;
}

export interface MountUsage extends Mount {
  size_bytes: number;
  used_bytes: number;
}

/** Kernel and in-memory filesystems: they hold no data worth a disk metric. */
const PSEUDO = new Set([
  'rootfs', 'proc', 'sysfs', 'devtmpfs', 'devpts', 'tmpfs', 'ramfs', 'cgroup', 'cgroup2', 'securityfs', 'pstore', 'bpf', 'debugfs',
  'tracefs', 'configfs', 'fusectl', 'mqueue', 'hugetlbfs', 'autofs', 'binfmt_misc', 'rpc_pipefs', 'nsfs', 'efivarfs',
  'selinuxfs', 'devfs', 'nfsd', 'squashfs', 'iso9660', 'fuse.lxcfs', 'fuse.gvfsd-fuse', 'fuse.portal', 'fuse.snapfuse', 'overlay', 'aufs',
]);

/**
 * Network filesystems are left out on purpose: statfs on a hung NFS or CIFS server blocks
 * (even off the main thread it ties up a libuv worker), and their size belongs to the server.
 */
const NETWORK = new Set(['nfs', 'nfs4', 'cifs', 'smb3', 'smbfs', 'ceph', 'glusterfs', 'fuse.sshfs', 'fuse.rclone', '9p', 'afs', 'lustre']);

/** /proc/mounts escapes space, tab, newline and backslash as \040-style octal. */
function unescapeMountField(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_m, oct: string) => String.fromCharCode(parseInt(oct, 8)));
}

export function parseProcMounts(text: string): Mount[] {
  const out: Mount[] = [];
  const seenMount = new Set<string>();
  const seenDevice = new Set<string>();
  for (const line of text.split('\n')) {
    const [device, mountField, fstype] = line.split(' ');
    if (!device || !mountField || !fstype) continue;
    const mount = unescapeMountField(mountField);
    // An overlay root is what a container's / really is: keep it, drop every other overlay.
    if (fstype === 'overlay' && mount === '/') {
      // kept
    } else if (PSEUDO.has(fstype) || NETWORK.has(fstype)) continue;
    // The same device mounted twice (bind mounts, btrfs subvolumes) is one disk: keep the first.
    if (seenMount.has(mount) || (device.startsWith('/') && seenDevice.has(device))) continue;
    seenMount.add(mount);
    if (device.startsWith('/')) seenDevice.add(device);
    out.push({ mount, device, fstype });
  }
  return out;
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** Real mounts on Linux; elsewhere (macOS) only the root, which statfs can still measure. */
export function listMounts(): Mount[] {
  if (process.platform !== 'linux') return [{ mount: '/', device: '', fstype: '' }];
  let text: string;
  try {
    text = readFileSync('/proc/mounts', 'utf8');
  } catch {
    return [{ mount: '/', device: '', fstype: '' }];
  }
  // Files bind-mounted into containers (/etc/hosts, ...) are not disks.
  return parseProcMounts(text).filter((m) => isDirectory(m.mount));
}

function timeout(ms: number): Promise<null> {
  return new Promise((resolve) => setTimeout(() => resolve(null), ms).unref());
}

/**
 * Sizes of the given mounts. fs.statfs (async, in libuv's pool) rather than statfsSync,
 * so one slow disk cannot stall the link; a mount that does not answer in time is skipped.
 */
export async function measureMounts(mounts: Mount[], timeoutMs = 2000): Promise<MountUsage[]> {
  const results = await Promise.all(
    mounts.map(async (m) => {
      try {
        const st = await Promise.race([statfs(m.mount), timeout(timeoutMs)]);
        if (!st || st.blocks === 0) return null;
        return { ...m, size_bytes: st.blocks * st.bsize, used_bytes: (st.blocks - st.bfree) * st.bsize };
      } catch {
        return null;
      }
    }),
  );
  return results.filter((r): r is MountUsage => r !== null);
}
