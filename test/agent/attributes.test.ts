import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { describe, it } from 'node:test';
import { collectAttributes } from '../../agent/attributes.js';
import { parseProcMounts } from '../../agent/system/mounts.js';
import { parseOsRelease } from '../../agent/system/os-release.js';
import { PACKAGE_VERSION } from '../../common/node/package-root.js';

const linux = process.platform === 'linux';

describe('attributes of this machine', () => {
  it('are read from the OS', async () => {
    const a = await collectAttributes({ agentVersion: PACKAGE_VERSION });
    assert.equal(a.os, process.platform);
    assert.equal(a.kernel, os.release());
    assert.equal(a.arch, os.arch());
    assert.equal(a.hostname, os.hostname());
    assert.equal(a.cpu_count, os.cpus().length);
    assert.equal(a.cpu_model, os.cpus()[0]!.model.trim());
    assert.equal(a.memory_bytes, os.totalmem());
    assert.equal(a.agent_version, PACKAGE_VERSION);
    assert.ok(Math.abs(Date.parse(a.boot_time) - (Date.now() - os.uptime() * 1000)) < 5000, `boot_time ${a.boot_time}`);
  });

  it('take the distribution from /etc/os-release', { skip: !existsSync('/etc/os-release') && 'no /etc/os-release' }, async () => {
    const rel = parseOsRelease(readFileSync('/etc/os-release', 'utf8'));
    const a = await collectAttributes({ agentVersion: 'x' });
    assert.equal(a.distribution, rel.ID);
    assert.equal(a.distribution_version, rel.VERSION_ID);
    assert.equal(a.distribution_pretty_name, rel.PRETTY_NAME);
  });

  it('list the real interfaces, without loopback', async () => {
    const a = await collectAttributes({ agentVersion: 'x' });
    const expected = Object.values(os.networkInterfaces())
      .flat()
      .filter((i) => i && !i.internal)
      .map((i) => i!.address);
    assert.deepEqual([...a.ips].sort(), [...new Set(expected)].sort());
    assert.ok(!a.ips.includes('127.0.0.1') && !a.ips.includes('::1'));
    for (const mac of a.macs) assert.match(mac, /^([0-9a-f]{2}:){5}[0-9a-f]{2}$/);
    assert.ok(!a.macs.includes('00:00:00:00:00:00'));
  });

  it('list real filesystems with their sizes, and no pseudo filesystems', { skip: !linux && 'Linux only' }, async () => {
    const a = await collectAttributes({ agentVersion: 'x' });
    const root = a.disks.find((d) => d.mount === '/');
    assert.ok(root, `/ is among ${JSON.stringify(a.disks)}`);
    const st = await import('node:fs/promises').then((fs) => fs.statfs('/'));
    assert.equal(root.size_bytes, st.blocks * st.bsize);
    for (const d of a.disks) assert.ok(!['proc', 'sysfs', 'tmpfs', 'devtmpfs', 'cgroup', 'cgroup2', 'devpts'].includes(d.fstype ?? ''), `${d.mount} ${d.fstype}`);
  });

  it('say what systemd-detect-virt says, when it is installed', { skip: !existsSync('/usr/bin/systemd-detect-virt') && 'no systemd-detect-virt' }, async () => {
    let expected: string;
    try {
      expected = execFileSync('systemd-detect-virt', { encoding: 'utf8' }).trim();
    } catch (err) {
      expected = String((err as { stdout?: string }).stdout ?? '').trim(); // "none" comes with exit code 1
    }
    const a = await collectAttributes({ agentVersion: 'x' });
    assert.equal(a.virtualization, expected);
  });

  it('leave out what is unknown instead of making it up', async () => {
    const a = await collectAttributes({ agentVersion: 'x' });
    for (const [k, v] of Object.entries(a)) assert.ok(v !== undefined && v !== '' , `${k} is ${JSON.stringify(v)}`);
    if (a.fqdn !== undefined) assert.match(a.fqdn, /\./, 'an fqdn has a domain');
  });

  it('serialise identically when nothing changed (so they are only re-sent on change)', async () => {
    const first = JSON.stringify(await collectAttributes({ agentVersion: 'x' }));
    const second = JSON.stringify(await collectAttributes({ agentVersion: 'x' }));
    assert.equal(second, first);
  });
});

describe('parseOsRelease', () => {
  it('handles quotes, escapes, comments and blank lines', () => {
    const rel = parseOsRelease(['# comment', '', 'ID=alpine', 'VERSION_ID="3.19.1"', "NAME='Alpine Linux'", 'PRETTY_NAME="Say \\"hi\\" \\$x"', 'junk line'].join('\n'));
    assert.deepEqual(rel, { ID: 'alpine', VERSION_ID: '3.19.1', NAME: 'Alpine Linux', PRETTY_NAME: 'Say "hi" $x' });
  });
});

describe('parseProcMounts', () => {
  const text = [
    'rootfs / rootfs rw 0 0',
    '/dev/sda1 / ext4 rw,relatime 0 0',
    'proc /proc proc rw 0 0',
    'sysfs /sys sysfs rw 0 0',
    'tmpfs /run tmpfs rw 0 0',
    'cgroup2 /sys/fs/cgroup cgroup2 rw 0 0',
    '/dev/sda2 /home xfs rw 0 0',
    '/dev/sda2 /srv/bind xfs rw 0 0',
    '/dev/sdb1 /mnt/My\\040Disk ext4 rw 0 0',
    'server:/export /mnt/nfs nfs4 rw 0 0',
    'overlay /var/lib/docker/overlay2/x/merged overlay rw 0 0',
    '/dev/loop3 /snap/core/1 squashfs ro 0 0',
    '',
  ].join('\n');

  it('keeps real filesystems once each, unescaping names', () => {
    assert.deepEqual(parseProcMounts(text), [
      { mount: '/', device: '/dev/sda1', fstype: 'ext4' },
      { mount: '/home', device: '/dev/sda2', fstype: 'xfs' },
      { mount: '/mnt/My Disk', device: '/dev/sdb1', fstype: 'ext4' },
    ]);
  });

  it("keeps an overlay that is the root (a container's /)", () => {
    assert.deepEqual(parseProcMounts('overlay / overlay rw 0 0\noverlay /other overlay rw 0 0\n'), [{ mount: '/', device: 'overlay', fstype: 'overlay' }]);
  });
});
