// Every resource type a real agent can host, end to end: a real orchestrator, a real
// corral-agent child process, real files under a temporary directory, real users and groups
// (as root, with random names, removed afterwards), a real .deb from a local apt repository,
// and the service manager as this machine has it. Each apply is followed by a second one
// that must report everything unchanged.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Operation, OperationOutput, ResourceResult } from '../../common/schemas/state.js';
import type { AgentProcess } from '../helpers/agent-process.js';
import { runOn, startAcceptedAgent, uploadModule } from '../helpers/fleet.js';
import { aptSkipReason, createLocalAptRepo, dpkgVersion, type LocalAptRepo } from '../helpers/local-apt-repo.js';
import { startTestOrchestrator, type TestOrchestrator } from '../helpers/orchestrator.js';

const NODE = 'resources-1';
const isRoot = process.getuid?.() === 0;
const serviceManagerRunning = existsSync('/run/systemd/system') || existsSync('/run/openrc');
const systemdInstalled = ['/usr/bin/systemctl', '/bin/systemctl'].some((p) => existsSync(p));

type Resource = Record<string, unknown> & { id: string; type: string };

/** A module as YAML (JSON is YAML; no quoting surprises in paths and commands). */
const moduleYaml = (name: string, resources: Resource[], vars: Record<string, string> = {}) =>
  JSON.stringify({ name, description: `state-resources test: ${name}`, vars, resources }, null, 2) + '\n';

const statuses = (op: Operation) => op.results.map((r) => [r.resource_id, r.status]);
const result = (op: Operation, id: string): ResourceResult => {
  const r = op.results.find((x) => x.resource_id === id);
  assert.ok(r, `a result for ${id} in ${JSON.stringify(op.results.map((x) => x.resource_id))}`);
  return r;
};
const modeOf = (p: string) => (lstatSync(p).mode & 0o7777).toString(8).padStart(4, '0');

function getent(db: 'passwd' | 'group', key: string): string[] | undefined {
  try {
    return execFileSync('getent', [db, key], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim().split(':');
  } catch {
    return undefined;
  }
}

/** Every path under dir with kind, mode, owner, size, mtime and contents or link target. */
function treeSnapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (p: string): void => {
    const st = lstatSync(p, { bigint: true });
    let extra = '';
    if (st.isSymbolicLink()) extra = `-> ${readlinkSync(p)}`;
    else if (st.isFile()) extra = readFileSync(p, 'utf8');
    out[path.relative(dir, p) || '.'] = JSON.stringify([st.mode.toString(8), st.uid.toString(), st.gid.toString(), st.size.toString(), st.mtimeNs.toString(), extra]);
    if (st.isDirectory()) for (const e of readdirSync(p).sort()) walk(path.join(p, e));
  };
  walk(dir);
  return out;
}

interface Proc {
  pid: number;
  ppid: number;
  comm: string;
  args: string;
}

function processes(): Proc[] {
  const text = execFileSync('ps', ['-e', '-o', 'pid=,ppid=,comm=,args='], { encoding: 'utf8' });
  const out: Proc[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*(\d+)\s+(\d+)\s+(\S+)\s*(.*)$/.exec(line);
    if (m) out.push({ pid: Number(m[1]), ppid: Number(m[2]), comm: m[3]!, args: m[4]! });
  }
  return out;
}

/** Processes that descend from this test process (the agent's children included). */
function descendants(list: Proc[]): Proc[] {
  const byPid = new Map(list.map((p) => [p.pid, p]));
  const mine = (p: Proc): boolean => {
    for (let cur: Proc | undefined = p, hops = 0; cur && hops < 64; cur = byPid.get(cur.ppid), hops++) if (cur.ppid === process.pid) return true;
    return false;
  };
  return list.filter((p) => p.pid !== process.pid && mine(p));
}

describe('every resource type on a real agent', () => {
  let orch: TestOrchestrator;
  let agent: AgentProcess;
  let op: string;
  let dir: string;
  let apt: LocalAptRepo | undefined;
  const suffix = randomBytes(3).toString('hex');
  const userName = `corral-u-${suffix}`;
  const groupName = `corral-g-${suffix}`;
  const pkgName = `corral-test-pkg-${suffix}`;
  const aptSkip = aptSkipReason();
  let lastIsolation: Operation | undefined;
  let lastNotify: Operation | undefined;

  async function apply(name: string, resources: Resource[]): Promise<Operation> {
    await uploadModule(orch, op, moduleYaml(name, resources));
    return runOn(orch, op, NODE, 'apply', { modules: [name] });
  }

  /** Applies, then applies again: the second run must report every resource unchanged. */
  async function applyTwice(name: string, resources: Resource[]): Promise<Operation> {
    const first = await apply(name, resources);
    const second = await runOn(orch, op, NODE, 'apply', { modules: [name] });
    assert.equal(second.status, 'succeeded', JSON.stringify(second.results));
    assert.deepEqual(
      statuses(second),
      resources.map((r) => [r.id, 'unchanged']),
      'idempotent: the second apply changes nothing',
    );
    return first;
  }

  async function output(operationId: string): Promise<OperationOutput> {
    const res = await orch.api('GET', `/agents/${NODE}/state/operations/${operationId}/output`, { token: op });
    assert.equal(res.status, 200, res.text);
    return res.json as OperationOutput;
  }

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'corral-resources-'));
    orch = await startTestOrchestrator({ heartbeatS: 2 });
    op = (await orch.loginAs('operator', 'res-op')).token;
    agent = await startAcceptedAgent(orch, await orch.adminToken(), NODE);
    if (!aptSkip) apt = createLocalAptRepo(pkgName, ['1.0']);
  });

  after(async () => {
    await agent?.dispose();
    await orch?.close();
    // Whatever happened above, leave no account, package or repository behind.
    if (isRoot) {
      for (const [cmd, name] of [['userdel', userName], ['groupdel', groupName]] as const) {
        try {
          execFileSync(cmd, [name], { stdio: 'ignore' });
        } catch {
          // not there
        }
      }
      rmSync(`/home/${userName}`, { recursive: true, force: true });
    }
    apt?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a plan of every type leaves the file system, accounts, packages and process table as they were', async () => {
    const root = path.join(dir, 'plan');
    mkdirSync(path.join(root, 'existing'), { recursive: true });
    writeFileSync(path.join(root, 'existing', 'app.conf'), 'port = 1\n', { mode: 0o644 });
    writeFileSync(path.join(root, 'existing', 'old.txt'), 'remove me\n');
    const resources: Resource[] = [
      { id: 'dir', type: 'directory', path: `${root}/new-dir`, mode: '0750' },
      { id: 'file', type: 'file', path: `${root}/new-dir/file.txt`, content: 'hello\n', requires: ['dir'] },
      { id: 'file-mode', type: 'file', path: `${root}/existing/app.conf`, content: 'port = 2\n', mode: '0600' },
      { id: 'file-absent', type: 'file', path: `${root}/existing/old.txt`, ensure: 'absent' },
      { id: 'link', type: 'symlink', path: `${root}/link`, target: `${root}/existing` },
      { id: 'line', type: 'line', path: `${root}/existing/app.conf`, line: 'port = 3', match: '^port' },
      // No guard: a plan must not run it (it would create a file and leave a process behind).
      { id: 'script', type: 'script', run: `touch ${root}/script-ran; sleep 60 & echo started` },
      { id: 'guarded', type: 'script', run: `touch ${root}/guarded-ran`, unless: `test -e ${root}/nothing-here` },
      { id: 'group', type: 'group', name: groupName },
      { id: 'user', type: 'user', name: userName, system: true },
      { id: 'pkg', type: 'package', name: apt ? pkgName : `corral-no-such-pkg-${suffix}` },
      { id: 'svc', type: 'service', name: 'cron', state: 'running' },
    ];
    await uploadModule(orch, op, moduleYaml('plan-all', resources));
    const passwd = readFileSync('/etc/passwd', 'utf8');
    const group = readFileSync('/etc/group', 'utf8');
    const dpkg = existsSync('/usr/bin/dpkg-query') ? execFileSync('dpkg-query', ['-W'], { encoding: 'utf8' }) : '';
    const tree = treeSnapshot(dir);
    const procsBefore = new Set(descendants(processes()).map((p) => `${p.pid} ${p.comm}`));

    const plan = await runOn(orch, op, NODE, 'plan', { modules: ['plan-all'] });
    assert.equal(plan.kind, 'plan');
    const expected: Record<string, string> = {
      dir: 'would_change',
      file: 'would_change',
      'file-mode': 'would_change',
      'file-absent': 'would_change',
      link: 'would_change',
      line: 'would_change',
      script: 'would_change',
      guarded: 'would_change',
      group: 'would_change',
      user: 'would_change',
      pkg: apt ? 'would_change' : 'would_fail',
      svc: serviceManagerRunning ? result(plan, 'svc').status : 'would_fail',
    };
    assert.deepEqual(Object.fromEntries(statuses(plan)), expected, JSON.stringify(plan.results, null, 1));

    // Short-lived children (guards, dpkg-query, apt-cache, getent) are gone by now; anything new that stays is a leak.
    await new Promise((r) => setTimeout(r, 300));
    const later = descendants(processes());
    await new Promise((r) => setTimeout(r, 500));
    const stillThere = new Set(descendants(processes()).map((p) => `${p.pid} ${p.comm}`));
    const leftover = later.filter((p) => !procsBefore.has(`${p.pid} ${p.comm}`) && stillThere.has(`${p.pid} ${p.comm}`) && p.comm !== 'ps');
    assert.deepEqual(leftover, [], 'the plan left no process running');
    assert.deepEqual(treeSnapshot(dir), tree, 'the file tree is exactly as it was (paths, modes, owners, mtimes, contents)');
    assert.equal(readFileSync('/etc/passwd', 'utf8'), passwd);
    assert.equal(readFileSync('/etc/group', 'utf8'), group);
    if (dpkg) assert.equal(execFileSync('dpkg-query', ['-W'], { encoding: 'utf8' }), dpkg, 'dpkg status unchanged');
    assert.equal(getent('passwd', userName), undefined);
    assert.equal(getent('group', groupName), undefined);
  });

  it('file, directory, symlink and line: converge, then a second apply is all unchanged', async () => {
    const root = path.join(dir, 'fs');
    mkdirSync(path.join(root, 'etc'), { recursive: true });
    writeFileSync(path.join(root, 'etc', 'app.conf'), '# app\nport = 1\nname = x\n');
    writeFileSync(path.join(root, 'etc', 'stale.conf'), 'stale\n');
    const op1 = await applyTwice('fs-types', [
      { id: 'site', type: 'directory', path: `${root}/site/public`, mode: '0750' },
      { id: 'index', type: 'file', path: `${root}/site/public/index.html`, content: '<h1>{{ not expanded }}</h1>\n', mode: '0640', requires: ['site'] },
      { id: 'greeting', type: 'file', path: `${root}/site/greeting.txt`, template: 'hello {{ attributes.hostname }}\n', requires: ['site'] },
      { id: 'current', type: 'symlink', path: `${root}/current`, target: `${root}/site/public`, requires: ['site'] },
      { id: 'port', type: 'line', path: `${root}/etc/app.conf`, line: 'port = 8080', match: '^port\\s*=' },
      { id: 'extra', type: 'line', path: `${root}/etc/app.conf`, line: 'debug = false', requires: ['port'] },
      { id: 'stale', type: 'file', path: `${root}/etc/stale.conf`, ensure: 'absent' },
    ]);
    assert.equal(op1.status, 'succeeded', JSON.stringify(op1.results));
    assert.ok(op1.results.every((r) => r.status === 'changed' && r.change_kind === 'intentional'), JSON.stringify(statuses(op1)));
    assert.equal(modeOf(`${root}/site/public`), '0750');
    assert.equal(readFileSync(`${root}/site/public/index.html`, 'utf8'), '<h1>{{ not expanded }}</h1>\n');
    assert.equal(modeOf(`${root}/site/public/index.html`), '0640');
    assert.equal(readFileSync(`${root}/site/greeting.txt`, 'utf8'), `hello ${os.hostname()}\n`);
    assert.equal(readlinkSync(`${root}/current`), `${root}/site/public`);
    assert.equal(readFileSync(`${root}/etc/app.conf`, 'utf8'), '# app\nport = 8080\nname = x\ndebug = false\n');
    assert.equal(existsSync(`${root}/etc/stale.conf`), false);
    assert.match(result(op1, 'index').diff?.content ?? '', /^\+<h1>\{\{ not expanded \}\}<\/h1>$/m);
    assert.deepEqual(result(op1, 'site').diff?.properties.ensure, { before: 'absent', after: 'present' });
  });

  it('scripts: creates, unless and check guards, env, cwd, captured stdout/stderr/exit code; a second apply is all unchanged', async () => {
    const root = path.join(dir, 'scripts');
    mkdirSync(root, { recursive: true });
    writeFileSync(path.join(root, 'flag'), '');
    const first = await applyTwice('scripts', [
      { id: 'work', type: 'directory', path: `${root}/work` },
      {
        id: 'env-cwd',
        type: 'script',
        run: 'echo "$GREETING from $(pwd)" | tee out.txt; echo "warning: $MODE" >&2',
        env: { GREETING: 'hi', MODE: 'test' },
        cwd: `${root}/work`,
        creates: `${root}/work/out.txt`,
        requires: ['work'],
      },
      { id: 'unless', type: 'script', run: `echo v1 > ${root}/version`, unless: `grep -qx v1 ${root}/version` },
      { id: 'check', type: 'script', run: `rm ${root}/flag && echo removed`, check: `test -e ${root}/flag` },
      { id: 'check-false', type: 'script', run: `touch ${root}/never`, check: 'false' },
      { id: 'creates-there', type: 'script', run: `touch ${root}/never`, creates: `${root}/work`, requires: ['work'] },
    ]);
    assert.equal(first.status, 'succeeded', JSON.stringify(first.results));
    assert.deepEqual(statuses(first), [
      ['work', 'changed'],
      ['env-cwd', 'changed'],
      ['unless', 'changed'],
      ['check', 'changed'],
      ['check-false', 'unchanged'],
      ['creates-there', 'unchanged'],
    ]);
    assert.match(result(first, 'check-false').message ?? '', /check exited 1/);
    assert.match(result(first, 'creates-there').message ?? '', /creates: .* exists/);
    assert.equal(readFileSync(`${root}/work/out.txt`, 'utf8'), `hi from ${root}/work\n`);
    assert.equal(readFileSync(`${root}/version`, 'utf8'), 'v1\n');
    assert.equal(existsSync(`${root}/flag`), false);
    assert.equal(existsSync(`${root}/never`), false);
    assert.equal(result(first, 'env-cwd').has_output, true);
    assert.equal(result(first, 'check-false').has_output, false);
    const out = await output(first.operation_id);
    assert.deepEqual(
      out.resources.map((r) => [r.resource_id, r.stdout, r.stderr, r.exit_code, r.truncated]),
      [
        ['env-cwd', `hi from ${root}/work\n`, 'warning: test\n', 0, false],
        ['unless', '', '', 0, false],
        ['check', 'removed\n', '', 0, false],
      ],
    );
  });

  it('failure isolation: a failing script skips what requires it (transitively), a timeout kills its script, the rest applies: partial', async () => {
    const root = path.join(dir, 'isolation');
    const started = Date.now();
    const op1 = await apply('isolation', [
      { id: 'base', type: 'directory', path: root },
      { id: 'broken', type: 'script', run: 'echo partial work; echo something broke >&2; exit 3', requires: ['base'] },
      { id: 'needs-broken', type: 'file', path: `${root}/after-broken`, content: 'x\n', requires: ['broken'] },
      { id: 'needs-needs', type: 'script', run: `touch ${root}/transitive`, requires: ['needs-broken'] },
      { id: 'slow', type: 'script', run: 'echo going to sleep; sleep 31.7', timeout: 1, requires: ['base'] },
      { id: 'after-slow', type: 'file', path: `${root}/after-slow`, content: 'x\n', requires: ['slow'] },
      { id: 'independent', type: 'file', path: `${root}/independent`, content: 'fine\n', requires: ['base'] },
    ]);
    assert.equal(op1.status, 'partial', JSON.stringify(op1.results));
    assert.deepEqual(Object.fromEntries(statuses(op1)), {
      base: 'changed',
      broken: 'failed',
      'needs-broken': 'skipped',
      'needs-needs': 'skipped',
      slow: 'failed',
      'after-slow': 'skipped',
      independent: 'changed',
    });
    assert.deepEqual(
      { failed: op1.counts.failed, skipped: op1.counts.skipped, changed: op1.counts.changed, total: op1.counts.total },
      { failed: 2, skipped: 3, changed: 2, total: 7 },
    );
    assert.equal(result(op1, 'broken').message, 'exited 3');
    // (The module/ prefix in these messages: see the test 'messages name resources as the module does' below.)
    assert.match(result(op1, 'needs-broken').message ?? '', /^requires "(isolation\/)?broken", which failed$/);
    assert.match(result(op1, 'needs-needs').message ?? '', /^requires "(isolation\/)?needs-broken", which was skipped$/);
    lastIsolation = op1;
    assert.equal(result(op1, 'slow').message, 'timed out after 1 s and was killed');
    assert.ok(result(op1, 'slow').duration_ms < 5000, `killed at the timeout (${result(op1, 'slow').duration_ms} ms)`);
    assert.ok(Date.now() - started < 15_000);
    assert.equal(readFileSync(`${root}/independent`, 'utf8'), 'fine\n');
    for (const f of ['after-broken', 'transitive', 'after-slow']) assert.equal(existsSync(`${root}/${f}`), false, f);
    assert.deepEqual(
      processes().filter((p) => p.args.includes('sleep 31.7')),
      [],
      'the timed-out script and its children were killed',
    );
    const out = await output(op1.operation_id);
    const byId = Object.fromEntries(out.resources.map((r) => [r.resource_id, r]));
    assert.deepEqual([byId.broken?.stdout, byId.broken?.stderr, byId.broken?.exit_code], ['partial work\n', 'something broke\n', 3]);
    assert.equal(byId.slow?.stdout, 'going to sleep\n');
    assert.equal(byId.slow?.exit_code, null, 'killed by a signal: no exit code');
    // The believed state moves only on a fully successful apply.
    const state = await orch.api('GET', `/agents/${NODE}/state`, { token: op });
    assert.notEqual(state.json.baseline_operation_id, op1.operation_id);
  });

  it('notify: a changed file re-runs its script once at the end, not at all when unchanged; notified_by says why', async () => {
    const root = path.join(dir, 'notify');
    const runs = `${root}/runs`;
    const resources = (content: string): Resource[] => [
      { id: 'dir', type: 'directory', path: root },
      { id: 'reload', type: 'script', run: `echo reload >> ${runs}; echo reloaded`, unless: 'true', requires: ['dir'] },
      { id: 'conf', type: 'file', path: `${root}/app.conf`, content, requires: ['dir'], notify: ['reload'] },
      { id: 'other', type: 'file', path: `${root}/other.conf`, content: 'same\n', requires: ['dir'], notify: ['reload'] },
    ];
    const first = await apply('notify', resources('v1\n'));
    assert.equal(first.status, 'succeeded', JSON.stringify(first.results));
    assert.equal(readFileSync(runs, 'utf8'), 'reload\n', 'one run for two notifying changes');
    const reload = result(first, 'reload');
    assert.equal(reload.status, 'changed');
    assert.deepEqual(reload.notified_by, ['conf', 'other']);
    assert.match(reload.message ?? '', /re-run \(notified by (notify\/)?conf, (notify\/)?other\)/);
    lastNotify = first;
    assert.deepEqual(result(first, 'conf').notified_by, []);
    const out = await output(first.operation_id);
    assert.equal(out.resources.find((r) => r.resource_id === 'reload')?.stdout, 'reloaded\n');

    const same = await runOn(orch, op, NODE, 'apply', { modules: ['notify'] });
    assert.deepEqual(statuses(same), [['dir', 'unchanged'], ['reload', 'unchanged'], ['conf', 'unchanged'], ['other', 'unchanged']]);
    assert.deepEqual(result(same, 'reload').notified_by, []);
    assert.equal(readFileSync(runs, 'utf8'), 'reload\n', 'no change, no re-run');

    const changed = await apply('notify', resources('v2\n'));
    assert.deepEqual(result(changed, 'reload').notified_by, ['conf']);
    assert.equal(result(changed, 'other').status, 'unchanged');
    assert.equal(readFileSync(runs, 'utf8'), 'reload\nreload\n');
  });

  it(
    'messages name resources as the module does, like notified_by (no internal "module/" prefix)',
    () => {
    assert.ok(lastIsolation && lastNotify, 'the isolation and notify tests ran');
    assert.equal(result(lastIsolation, 'needs-broken').message, 'requires "broken", which failed');
    assert.equal(result(lastIsolation, 'needs-needs').message, 'requires "needs-broken", which was skipped');
    assert.deepEqual(result(lastNotify, 'reload').notified_by, ['conf', 'other']);
    assert.equal(result(lastNotify, 'reload').message, 're-run (notified by conf, other)');
  });

  it('user and group (root): create, unchanged again, then absent, unchanged again', { skip: !isRoot && 'creating users and groups needs root' }, async () => {
    const created = await applyTwice('accounts', [
      { id: 'group', type: 'group', name: groupName, system: true },
      { id: 'user', type: 'user', name: userName, system: true, gid: groupName, shell: '/bin/sh', requires: ['group'] },
    ]);
    assert.equal(created.status, 'succeeded', JSON.stringify(created.results));
    assert.deepEqual(statuses(created), [['group', 'changed'], ['user', 'changed']]);
    const g = getent('group', groupName);
    const u = getent('passwd', userName);
    assert.ok(g && u, 'both exist');
    assert.equal(u[3], g[2], 'the user has the group as its primary group');
    assert.equal(u[6], '/bin/sh');

    const removed = await applyTwice('accounts', [
      { id: 'user', type: 'user', name: userName, ensure: 'absent' },
      { id: 'group', type: 'group', name: groupName, ensure: 'absent', requires: ['user'] },
    ]);
    assert.equal(removed.status, 'succeeded', JSON.stringify(removed.results));
    assert.deepEqual(statuses(removed), [['user', 'changed'], ['group', 'changed']]);
    assert.equal(getent('passwd', userName), undefined);
    assert.equal(getent('group', groupName), undefined);
  });

  it('package: a local .deb installs, is unchanged again, and is removed', { skip: aptSkip }, async () => {
    const installed = await applyTwice('pkg', [{ id: 'pkg', type: 'package', name: pkgName }]);
    assert.equal(installed.status, 'succeeded', JSON.stringify(installed.results));
    assert.equal(result(installed, 'pkg').status, 'changed');
    assert.equal(result(installed, 'pkg').message, 'installed 1.0');
    assert.equal(dpkgVersion(pkgName), '1.0');
    assert.equal(readFileSync(`/usr/share/${pkgName}/version`, 'utf8'), '1.0\n');
    // (No second apply after the removal: every apt read costs ~1.5 s here, every change several.)
    const removed = await apply('pkg', [{ id: 'pkg', type: 'package', name: pkgName, ensure: 'absent' }]);
    assert.equal(result(removed, 'pkg').status, 'changed');
    assert.equal(dpkgVersion(pkgName), undefined);
  });

  it(
    'service: no service manager runs here, so a service resource fails with a clear message',
    { skip: serviceManagerRunning && 'a service manager is running on this machine' },
    async () => {
      const op1 = await apply('svc', [
        { id: 'svc', type: 'service', name: 'cron', state: 'running', enabled: true },
        { id: 'after', type: 'file', path: `${dir}/svc-after`, content: 'x\n', requires: ['svc'] },
      ]);
      assert.equal(op1.status, 'failed', JSON.stringify(op1.results));
      const svc = result(op1, 'svc');
      assert.equal(svc.status, 'failed');
      assert.match(svc.message ?? '', /^no service manager is running on this machine: /);
      if (systemdInstalled) assert.match(svc.message ?? '', /systemd is installed but not PID 1 \(no \/run\/systemd\/system\)/);
      assert.equal(result(op1, 'after').status, 'skipped');
      const plan = await runOn(orch, op, NODE, 'plan', { modules: ['svc'] });
      assert.equal(result(plan, 'svc').status, 'would_fail');
      assert.match(result(plan, 'svc').message ?? '', /no service manager is running/);
    },
  );

  it(
    'service: a real start, stop and notify restart',
    { skip: serviceManagerRunning ? 'not run on a machine with a live service manager: it would start and stop a real service there' : 'systemd is installed but not PID 1 in this container (no /run/systemd/system), so no service can be started or stopped' },
    () => {},
  );
});
