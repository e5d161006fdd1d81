import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { pino } from 'pino';
import { after, before, describe, it } from 'node:test';
import { apply, DryRunViolation, plan, ProviderContext } from '../../../agent/providers/index.js';
import { packageProvider, type PackageState } from '../../../agent/providers/package.js';
import { apk, parseApkPolicy } from '../../../agent/providers/package-managers/apk.js';
import { apt, parseAptPolicy } from '../../../agent/providers/package-managers/apt.js';
import { brew, parseBrewInfo } from '../../../agent/providers/package-managers/brew.js';
import { detectPackageManager } from '../../../agent/providers/package-managers/detect.js';
import { pacman } from '../../../agent/providers/package-managers/pacman.js';
import { dnf, parseYumList, yum } from '../../../agent/providers/package-managers/rpm.js';
import { APT_LISTS, aptSkipReason, createLocalAptRepo, dpkgVersion, type LocalAptRepo } from '../../helpers/local-apt-repo.js';

const out = (stdout: string, exit_code = 0, stderr = '') => ({ stdout, stderr, exit_code });
const ctx = new ProviderContext({ logger: pino({ level: 'silent' }) });

describe('package manager commands (pure, no manager needed)', () => {
  it('apt: dpkg-query to read, apt-cache policy with no cache files, apt-get with an argument array', () => {
    assert.deepEqual(apt.installedCommand('curl'), { file: 'dpkg-query', args: ['-W', '-f=${Status}\\t${Version}\\n', 'curl'] });
    assert.deepEqual(apt.candidateCommand('curl').args, ['-o', 'Dir::Cache::pkgcache=', '-o', 'Dir::Cache::srcpkgcache=', 'policy', 'curl']);
    const install = apt.installCommand('curl', { kind: 'version', version: '7.88.1-10' });
    assert.equal(install.file, 'apt-get');
    assert.deepEqual(install.args.slice(0, 3), ['install', '-y', '--no-install-recommends']);
    assert.deepEqual(install.args.slice(-2), ['--allow-downgrades', 'curl=7.88.1-10']);
    assert.equal(install.env?.DEBIAN_FRONTEND, 'noninteractive');
    assert.equal(apt.installCommand('curl', { kind: 'latest', candidate: '8.0', installed: true }).args.at(-1), 'curl=8.0');
    assert.equal(apt.installCommand('curl', { kind: 'present' }).args.at(-1), 'curl');
    assert.deepEqual(apt.removeCommand('curl').args.filter((a) => !a.startsWith('-') && !a.startsWith('Dpkg')), ['remove', 'curl']);
  });

  it('apt: parses dpkg status (removed-but-configured is not installed) and the policy table', () => {
    assert.equal(apt.parseInstalled('x', out('install ok installed\t1.2-1\n')), '1.2-1');
    assert.equal(apt.parseInstalled('x', out('deinstall ok config-files\t1.2-1\n')), undefined);
    assert.equal(apt.parseInstalled('x', out('', 1, 'dpkg-query: no packages found matching x\n')), undefined);
    assert.throws(() => apt.parseInstalled('x', out('', 2, 'dpkg-query: error: database locked')), /apt: could not read whether x is installed.*database locked/);
    const policy = [
      'curl:',
      '  Installed: 7.88.1-10+deb12u14',
      '  Candidate: 7.88.1-10+deb12u15',
      '  Version table:',
      '     7.88.1-10+deb12u15 500',
      '        500 http://deb.debian.org/debian bookworm/main amd64 Packages',
      ' *** 7.88.1-10+deb12u14 100',
      '        100 /var/lib/dpkg/status',
      '     7.88.1-10+deb12u5 500',
      '        500 http://deb.debian.org/debian-security bookworm-security/main amd64 Packages',
    ].join('\n');
    assert.deepEqual(parseAptPolicy(policy), { candidate: '7.88.1-10+deb12u15', versions: ['7.88.1-10+deb12u15', '7.88.1-10+deb12u5'] });
    assert.deepEqual(parseAptPolicy('x:\n  Installed: (none)\n  Candidate: (none)\n  Version table:\n'), { versions: [] });
    assert.deepEqual(parseAptPolicy(''), { versions: [] }, 'apt-cache prints nothing for an unknown name');
  });

  it('dnf and yum: rpm -q to read, the cache only (-C) for the candidate, NAME-VERSION to pin', () => {
    assert.deepEqual(dnf.installedCommand('nginx').args, ['-q', '--qf', '%|EPOCH?{%{EPOCH}:}:{}|%{VERSION}-%{RELEASE}\\n', 'nginx']);
    assert.deepEqual(dnf.candidateCommand('nginx'), { file: 'dnf', args: ['-C', '-q', 'repoquery', '--latest-limit=1', '--qf', '%{epoch}:%{version}-%{release}\\n', 'nginx'] });
    assert.deepEqual(yum.candidateCommand('nginx'), { file: 'yum', args: ['-C', '-q', 'list', 'nginx'] });
    assert.deepEqual(dnf.installCommand('nginx', { kind: 'version', version: '1:1.20.1-14.el9' }), { file: 'dnf', args: ['install', '-y', 'nginx-1:1.20.1-14.el9'] });
    assert.deepEqual(yum.installCommand('nginx', { kind: 'present' }), { file: 'yum', args: ['install', '-y', 'nginx'] });
    assert.deepEqual(dnf.removeCommand('nginx'), { file: 'dnf', args: ['remove', '-y', 'nginx'] });
    assert.equal(dnf.parseInstalled('nginx', out('1:1.20.1-14.el9\n')), '1:1.20.1-14.el9');
    assert.equal(dnf.parseInstalled('nginx', out('package nginx is not installed\n', 1)), undefined);
    assert.deepEqual(dnf.parseCandidate('nginx', out('0:1.22.1-2.fc38\n')), { candidate: '1.22.1-2.fc38' });
    assert.deepEqual(dnf.parseCandidate('nginx', out('')), { candidate: undefined });
    assert.throws(() => dnf.parseCandidate('nginx', out('', 1, "Error: Cache-only enabled but no cache for 'fedora'")), /dnf: .*no cache for 'fedora'/);
    assert.equal(dnf.versionMatches('1:1.20.1-14.el9', '1.20.1'), true, 'the release and epoch may be left out');
    assert.equal(dnf.versionMatches('1.20.1-14.el9', '1.20'), false);
    const list = 'Installed Packages\nnginx.x86_64      1:1.20.1-10.el7     @base\nAvailable Packages\nnginx.x86_64      1:1.20.1-14.el7     updates\n';
    assert.equal(parseYumList('nginx', list), '1:1.20.1-14.el7');
    assert.equal(parseYumList('nginx', 'Installed Packages\nnginx.x86_64  1:1.20.1-10.el7  @base\n'), '1:1.20.1-10.el7');
    assert.deepEqual(yum.parseCandidate('nope', out('', 1, 'Error: No matching Packages to list')), { candidate: undefined });
  });

  it('apk: info -e -v, policy without network, NAME=VERSION pins but latest does not', () => {
    assert.deepEqual(apk.installedCommand('nginx'), { file: 'apk', args: ['info', '-e', '-v', 'nginx'] });
    assert.deepEqual(apk.candidateCommand('nginx'), { file: 'apk', args: ['--no-network', 'policy', 'nginx'] });
    assert.deepEqual(apk.installCommand('nginx', { kind: 'version', version: '1.24.0-r7' }).args, ['add', 'nginx=1.24.0-r7']);
    assert.deepEqual(apk.installCommand('nginx', { kind: 'latest', candidate: '1.24.0-r8', installed: true }).args, ['add', '--upgrade', 'nginx']);
    assert.deepEqual(apk.removeCommand('nginx').args, ['del', 'nginx']);
    assert.equal(apk.parseInstalled('nginx', out('nginx-1.24.0-r7\n')), '1.24.0-r7');
    assert.equal(apk.parseInstalled('nginx', out('')), undefined);
    const policy = 'nginx policy:\n  1.24.0-r7:\n    lib/apk/db/installed\n  1.24.0-r8:\n    https://dl-cdn.alpinelinux.org/alpine/v3.19/main\n';
    assert.deepEqual(parseApkPolicy(policy), { candidate: '1.24.0-r8', versions: ['1.24.0-r8'] });
  });

  it('pacman and brew: cannot pin a version; their reads and changes', () => {
    assert.equal(pacman.pinsVersions, false);
    assert.deepEqual(pacman.installedCommand('vim').args, ['-Q', 'vim']);
    assert.deepEqual(pacman.candidateCommand('vim').args, ['-Si', 'vim']);
    assert.deepEqual(pacman.installCommand('vim', { kind: 'present' }).args, ['-S', '--noconfirm', '--needed', 'vim']);
    assert.deepEqual(pacman.removeCommand('vim').args, ['-R', '--noconfirm', 'vim']);
    assert.equal(pacman.parseInstalled('vim', out('vim 9.1.0-1\n')), '9.1.0-1');
    assert.equal(pacman.parseInstalled('vim', out('', 1, "error: package 'vim' was not found\n")), undefined);
    assert.deepEqual(pacman.parseCandidate('vim', out('Repository      : extra\nName            : vim\nVersion         : 9.1.0-2\n')), { candidate: '9.1.0-2' });

    assert.equal(brew.pinsVersions, false);
    assert.deepEqual(brew.installedCommand('jq'), { file: 'brew', args: ['list', '--versions', 'jq'], env: { HOMEBREW_NO_AUTO_UPDATE: '1', HOMEBREW_NO_ANALYTICS: '1', HOMEBREW_NO_ENV_HINTS: '1' } });
    assert.deepEqual(brew.installCommand('jq', { kind: 'latest', candidate: '1.7.1', installed: true }).args, ['upgrade', 'jq']);
    assert.deepEqual(brew.installCommand('jq', { kind: 'present' }).args, ['install', 'jq']);
    assert.deepEqual(brew.removeCommand('jq').args, ['uninstall', 'jq']);
    assert.equal(brew.parseInstalled('jq', out('jq 1.7 1.7.1\n')), '1.7.1');
    assert.equal(brew.parseInstalled('jq', out('', 1)), undefined);
    assert.equal(parseBrewInfo(JSON.stringify({ formulae: [{ versions: { stable: '1.7.1' }, revision: 1 }], casks: [] })), '1.7.1_1');
  });

  it('detection takes the first manager whose executables are all there, native before brew', () => {
    const has = (...exes: string[]) => (e: string) => exes.includes(e);
    assert.equal(detectPackageManager(has('dpkg-query', 'apt-get', 'apt-cache', 'brew'))?.name, 'apt');
    assert.equal(detectPackageManager(has('dnf', 'yum', 'rpm'))?.name, 'dnf');
    assert.equal(detectPackageManager(has('yum', 'rpm'))?.name, 'yum');
    assert.equal(detectPackageManager(has('rpm'))?.name, undefined, 'rpm alone cannot install');
    assert.equal(detectPackageManager(has('apk'))?.name, 'apk');
    assert.equal(detectPackageManager(has('pacman', 'brew'))?.name, 'pacman');
    assert.equal(detectPackageManager(has())?.name, undefined);
  });
});

describe('package provider: validation and diff (pure)', () => {
  it('refuses a name or version that is not one before running anything', async () => {
    for (const name of ['curl; rm -rf /', '-oAPT::Get::Foo=1', 'a b', '', '../x', 'x\ny']) {
      await assert.rejects(packageProvider.read({ name, manager: 'apt' }, ctx), /is not a valid package name/, name);
    }
    for (const ensure of ['1.0 && reboot', '-1', '$(id)', '1.0/2']) {
      await assert.rejects(packageProvider.read({ name: 'curl', ensure }, ctx), /is not a valid package version/, ensure);
    }
  });

  it('diff says what would change, in ensure and version', () => {
    const d = (ensure: string, current: PackageState) => packageProvider.diff({ name: 'p', ensure }, current);
    const absent: PackageState = { manager: 'apt', candidate: '1.1' };
    const old: PackageState = { manager: 'apt', installed: '1.0', candidate: '1.1' };
    assert.deepEqual(d('present', absent), { changed: true, diff: { properties: { ensure: { before: 'absent', after: 'present' }, version: { before: null, after: '1.1' } } }, message: 'would install p 1.1' });
    assert.equal(d('present', old).changed, false);
    assert.deepEqual(d('latest', old).diff.properties, { version: { before: '1.0', after: '1.1' } });
    assert.equal(d('latest', old).message, 'would upgrade p from 1.0 to 1.1');
    assert.equal(d('latest', { manager: 'apt', installed: '1.1', candidate: '1.1' }).changed, false);
    assert.equal(d('latest', { manager: 'yum', installed: '1.1-1' }).changed, false, 'no candidate: the installed one is the newest');
    assert.equal(d('1.0', old).changed, false);
    assert.equal(d('0.9', old).message, 'would change p from 1.0 to 0.9');
    assert.deepEqual(d('absent', old).diff.properties, { ensure: { before: 'present', after: 'absent' }, version: { before: '1.0', after: null } });
    assert.equal(d('absent', absent).changed, false);
  });
});

// The real thing: apt installs a tiny package from a local flat repository made here.
const skipApt = aptSkipReason();

describe('package provider with apt, for real (local repository, cleaned up)', { skip: skipApt }, () => {
  const name = `corral-test-pkg-${randomBytes(4).toString('hex')}`;
  let repo: LocalAptRepo | undefined;

  before(() => {
    repo = createLocalAptRepo(name, ['1.0', '1.1']);
  });

  after(() => {
    if (!repo) return;
    repo.cleanup();
    assert.deepEqual(readdirSync(APT_LISTS).sort(), repo.listsBefore, 'the apt lists are as they were');
    assert.equal(dpkgVersion(name), undefined);
  });

  it('plan says would install the candidate and installs nothing; converge refuses in a dry run', async () => {
    const [r] = await plan([{ id: 'pkg', type: 'package', properties: { name } }], ctx);
    assert.equal(r!.status, 'would_change', r!.message);
    assert.deepEqual(r!.diff!.properties, { ensure: { before: 'absent', after: 'present' }, version: { before: null, after: '1.1' } });
    assert.equal(r!.message, `would install ${name} 1.1`);
    const planCtx = ctx.forPlan();
    const current = await packageProvider.read({ name }, planCtx);
    assert.deepEqual(current, { manager: 'apt', candidate: '1.1' });
    await assert.rejects(packageProvider.converge({ name }, current, planCtx), DryRunViolation);
    assert.equal(dpkgVersion(name), undefined, 'the plan installed it');
  });

  it('apply installs it, and the next read is unchanged', async () => {
    const [r] = await apply([{ id: 'pkg', type: 'package', properties: { name } }], ctx);
    assert.equal(r!.status, 'changed', r!.message);
    assert.equal(r!.message, 'installed 1.1');
    assert.equal(dpkgVersion(name), '1.1');
    assert.equal(readFileSync(`/usr/share/${name}/version`, 'utf8'), '1.1\n');
    assert.equal(packageProvider.diff({ name }, await packageProvider.read({ name }, ctx)).changed, false);
    const [again] = await apply([{ id: 'pkg', type: 'package', properties: { name, manager: 'apt' } }], ctx);
    assert.equal(again!.status, 'unchanged');
  });

  it('an exact version goes down to 1.0; latest goes back up to 1.1', async () => {
    const pinned = { name, ensure: '1.0' };
    const current = await packageProvider.read(pinned, ctx);
    assert.deepEqual(packageProvider.diff(pinned, current).diff.properties, { version: { before: '1.1', after: '1.0' } });
    await packageProvider.converge(pinned, current, ctx);
    assert.equal(dpkgVersion(name), '1.0');
    assert.equal(packageProvider.diff(pinned, await packageProvider.read(pinned, ctx)).changed, false);

    const latest = { name, ensure: 'latest' };
    const [p] = await plan([{ id: 'pkg', type: 'package', properties: latest }], ctx);
    assert.equal(p!.message, `would upgrade ${name} from 1.0 to 1.1`);
    assert.equal(dpkgVersion(name), '1.0');
    const [r] = await apply([{ id: 'pkg', type: 'package', properties: latest }], ctx);
    assert.equal(r!.message, 'changed 1.0 -> 1.1');
    assert.equal(dpkgVersion(name), '1.1');
    assert.equal(packageProvider.diff(latest, await packageProvider.read(latest, ctx)).changed, false);
  });

  it('a version or a package the index does not have fails the read, naming apt', async () => {
    await assert.rejects(packageProvider.read({ name, ensure: '9.9' }, ctx), new RegExp(`apt has no version 9.9 of "${name}" in its local package index \\(it has 1.1, 1.0\\)`));
    await assert.rejects(packageProvider.read({ name: `${name}-nope` }, ctx), /apt has no package ".*-nope" in its local package index/);
  });

  it('an apt-get failure names apt and quotes its stderr', async () => {
    const err = await packageProvider.converge({ name: `${name}-nope` }, { manager: 'apt' }, ctx).then(
      () => assert.fail('should fail'),
      (e: Error) => e,
    );
    assert.match(err.message, /^apt: apt-get install -y .* exited 100: .*Unable to locate package/s);
  });

  it('absent removes it', async () => {
    const gone = { name, ensure: 'absent' };
    const [p] = await plan([{ id: 'pkg', type: 'package', properties: gone }], ctx);
    assert.equal(p!.message, `would remove ${name} 1.1`);
    assert.equal(dpkgVersion(name), '1.1');
    const [r] = await apply([{ id: 'pkg', type: 'package', properties: gone }], ctx);
    assert.equal(r!.status, 'changed', r!.message);
    assert.equal(dpkgVersion(name), undefined);
    assert.equal(existsSync(`/usr/share/${name}/version`), false);
    assert.equal(packageProvider.diff(gone, await packageProvider.read(gone, ctx)).changed, false);
  });
});
