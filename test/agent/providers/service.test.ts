import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { pino } from 'pino';
import { after, before, describe, it } from 'node:test';
import { apply, DryRunViolation, plan, ProviderContext } from '../../../agent/providers/index.js';
import { onPath } from '../../../agent/providers/run-file.js';
import { serviceProvider, type ServiceState } from '../../../agent/providers/service.js';
import { detectServiceManager, type ServiceProbe } from '../../../agent/providers/service-managers/detect.js';
import { openrc, parseRcUpdateShow } from '../../../agent/providers/service-managers/openrc.js';
import { systemd } from '../../../agent/providers/service-managers/systemd.js';
import { isRoot } from './support.js';

const out = (stdout: string, exit_code = 0, stderr = '') => ({ stdout, stderr, exit_code });
const ctx = new ProviderContext({ logger: pino({ level: 'silent' }) });

function probe(paths: string[], exes: string[]): ServiceProbe {
  return { exists: (p) => paths.includes(p), onPath: (e) => exes.includes(e) };
}

describe('service manager commands (pure, no init system needed)', () => {
  it('systemd: systemctl with an argument array', () => {
    assert.deepEqual(systemd.enabledCommand('nginx'), { file: 'systemctl', args: ['is-enabled', 'nginx'] });
    assert.deepEqual(systemd.runningCommand('nginx'), { file: 'systemctl', args: ['is-active', 'nginx'] });
    for (const verb of ['start', 'stop', 'restart', 'enable', 'disable'] as const) assert.deepEqual(systemd[verb]('nginx.service'), { file: 'systemctl', args: [verb, 'nginx.service'] });
  });

  it('systemd: reads the output word, not the exit code; a missing unit is an error', () => {
    assert.deepEqual(systemd.parseEnabled('a', out('enabled\n')), { enabled: true, detail: 'enabled', changeable: true });
    assert.deepEqual(systemd.parseEnabled('a', out('disabled\n', 1)), { enabled: false, detail: 'disabled', changeable: true });
    assert.deepEqual(systemd.parseEnabled('a', out('static\n')), { enabled: true, detail: 'static', changeable: false });
    assert.deepEqual(systemd.parseEnabled('a', out('masked\n', 1)), { enabled: false, detail: 'masked', changeable: true });
    assert.throws(() => systemd.parseEnabled('nope', out('', 1, 'Failed to get unit file state for nope.service: No such file or directory\n')), /systemd: no unit "nope".*No such file/);
    assert.equal(systemd.parseRunning('a', out('active\n')), true);
    assert.equal(systemd.parseRunning('a', out('inactive\n', 3)), false);
    assert.equal(systemd.parseRunning('a', out('failed\n', 3)), false);
  });

  it('openrc: rc-service and rc-update in the default runlevel', () => {
    assert.deepEqual(openrc.runningCommand('sshd'), { file: 'rc-service', args: ['sshd', 'status'] });
    assert.deepEqual(openrc.start('sshd'), { file: 'rc-service', args: ['sshd', 'start'] });
    assert.deepEqual(openrc.stop('sshd'), { file: 'rc-service', args: ['sshd', 'stop'] });
    assert.deepEqual(openrc.restart('sshd'), { file: 'rc-service', args: ['sshd', 'restart'] });
    assert.deepEqual(openrc.enable('sshd'), { file: 'rc-update', args: ['add', 'sshd', 'default'] });
    assert.deepEqual(openrc.disable('sshd'), { file: 'rc-update', args: ['del', 'sshd', 'default'] });
    assert.deepEqual(openrc.enabledCommand('sshd'), { file: 'rc-update', args: ['show', 'default'] });
    const show = '             sshd |      default\n          crond |      default\n          devfs | sysinit\n';
    assert.deepEqual([...parseRcUpdateShow(show)].sort(), ['crond', 'sshd']);
    assert.equal(openrc.parseEnabled('devfs', out(show)).enabled, false);
    assert.equal(openrc.parseRunning('sshd', out(' * status: started\n')), true);
    assert.equal(openrc.parseRunning('sshd', out(' * status: stopped\n', 3)), false);
    assert.throws(() => openrc.parseRunning('nope', out('', 1, " * rc-service: service `nope' does not exist\n")), /openrc: no service "nope"/);
  });

  it('detection needs a running manager, not an installed one, and says what it found', () => {
    assert.equal(detectServiceManager(probe(['/run/systemd/system'], ['systemctl'])).name, 'systemd');
    assert.equal(detectServiceManager(probe(['/run/openrc'], ['rc-service', 'systemctl'])).name, 'openrc');
    assert.throws(() => detectServiceManager(probe([], ['systemctl'])), /^Error: no service manager is running on this machine: systemd is installed but not PID 1/);
    assert.throws(() => detectServiceManager(probe([], ['rc-service'])), /OpenRC is installed but not started \(no \/run\/openrc\)/);
    assert.throws(() => detectServiceManager(probe([], [])), /neither systemd nor OpenRC is installed/);
    assert.throws(() => detectServiceManager(probe(['/run/openrc'], ['rc-service']), 'systemd'), /systemd was asked for, but systemd is not running/);
    assert.equal(detectServiceManager(probe(['/run/systemd/system', '/run/openrc'], ['rc-service']), 'openrc').name, 'openrc');
  });
});

describe('service provider: validation, diff and the dry-run guard (pure)', () => {
  const stopped: ServiceState = { manager: 'systemd', running: false, enabled: false, enabled_state: 'disabled' };

  it('refuses a name that could be an option or a path before running anything', async () => {
    for (const name of ['--now', 'a b', '../x', 'x;reboot', '']) await assert.rejects(serviceProvider.read({ name }, ctx), /is not a valid service name/, name);
    await assert.rejects(serviceProvider.read({ name: 'x', state: 'up' }, ctx), /state must be running or stopped/);
  });

  it('diff compares only the properties given', () => {
    assert.deepEqual(serviceProvider.diff({ name: 'x', state: 'running', enabled: true }, stopped), {
      changed: true,
      diff: { properties: { state: { before: 'stopped', after: 'running' }, enabled: { before: false, after: true } } },
      message: 'would start and enable',
    });
    assert.equal(serviceProvider.diff({ name: 'x' }, stopped).changed, false);
    assert.equal(serviceProvider.diff({ name: 'x', state: 'stopped', enabled: false }, stopped).changed, false);
    assert.equal(serviceProvider.diff({ name: 'x', enabled: false }, { ...stopped, enabled: true }).message, 'would disable');
  });

  it('converge and refresh refuse in a dry run before running anything', async () => {
    const planCtx = ctx.forPlan();
    await assert.rejects(serviceProvider.converge({ name: 'corral-nothing', state: 'running' }, stopped, planCtx), DryRunViolation);
    await assert.rejects(serviceProvider.converge({ name: 'corral-nothing', enabled: true }, stopped, planCtx), /refused during a plan \(dry run\): systemctl enable corral-nothing/);
  });

  it('a notify does not start a service that is meant to be stopped', async () => {
    assert.deepEqual(await serviceProvider.refresh!({ name: 'corral-nothing', state: 'stopped' }, ctx.forPlan()), { message: 'not restarted (state: stopped)' });
  });
});

// What runs this machine decides which real test can run; the others say why they are skipped.
const systemdRunning = existsSync('/run/systemd/system');
const openrcRunning = onPath('rc-service') && existsSync('/run/openrc');
const noManager = !systemdRunning && !openrcRunning;
const whyNoSystemd = !isRoot ? 'managing services needs root' : !systemdRunning ? (onPath('systemctl') ? 'systemd is not PID 1 on this machine' : 'systemd is not installed') : false;
const whyNoOpenrc = !isRoot ? 'managing services needs root' : !openrcRunning ? 'OpenRC is not running on this machine' : false;

describe('service provider on a machine with no running service manager', { skip: noManager ? false : 'a service manager runs here; the real tests below cover it' }, () => {
  it('read fails with a clear message instead of reporting "stopped"', async () => {
    const expected = onPath('systemctl') ? /^no service manager is running on this machine: systemd is installed but not PID 1/ : /^no service manager is running on this machine/;
    await assert.rejects(serviceProvider.read({ name: 'cron', state: 'running' }, ctx), (e: Error) => expected.test(e.message));
    const [r] = await plan([{ id: 'svc', type: 'service', properties: { name: 'cron', state: 'running', enabled: true } }], ctx);
    assert.equal(r!.status, 'would_fail');
    assert.match(r!.message!, expected);
    const [a] = await apply([{ id: 'svc', type: 'service', properties: { name: 'cron', state: 'running' } }], ctx);
    assert.equal(a!.status, 'failed');
    await assert.rejects(serviceProvider.refresh!({ name: 'cron' }, ctx), (e: Error) => expected.test(e.message));
  });
});

/** Plan, apply, re-read unchanged, notify restarts, stop and disable: the same walk for both managers. */
async function lifecycle(name: string, pid: () => string): Promise<void> {
  const up = { name, state: 'running', enabled: true };
  const [p] = await plan([{ id: 'svc', type: 'service', properties: up }], ctx);
  assert.equal(p!.status, 'would_change', p!.message);
  assert.equal(p!.message, 'would start and enable');
  assert.equal((await serviceProvider.read(up, ctx)).running, false, 'the plan started it');
  const [a] = await apply([{ id: 'svc', type: 'service', properties: up }], ctx);
  assert.equal(a!.status, 'changed', a!.message);
  assert.equal(serviceProvider.diff(up, await serviceProvider.read(up, ctx)).changed, false);
  const before = pid();
  await serviceProvider.refresh!(up, ctx);
  assert.notEqual(pid(), before, 'a notify restarts it');
  const down = { name, state: 'stopped', enabled: false };
  const [d] = await apply([{ id: 'svc', type: 'service', properties: down }], ctx);
  assert.equal(d!.message, 'disabled, stopped');
  assert.equal(serviceProvider.diff(down, await serviceProvider.read(down, ctx)).changed, false);
}

describe('service provider with systemd, for real', { skip: whyNoSystemd }, () => {
  const name = `corral-test-svc-${randomBytes(4).toString('hex')}`;
  const unit = `/etc/systemd/system/${name}.service`;
  const systemctl = (...args: string[]) => execFileSync('systemctl', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  before(() => {
    writeFileSync(unit, '[Unit]\nDescription=Corral service provider test\n\n[Service]\nExecStart=/bin/sleep infinity\n\n[Install]\nWantedBy=multi-user.target\n');
    systemctl('daemon-reload');
  });
  after(() => {
    for (const verb of ['stop', 'disable']) {
      try {
        systemctl(verb, name);
      } catch {
        // already so
      }
    }
    rmSync(unit, { force: true });
    systemctl('daemon-reload');
  });

  it('starts, enables, restarts on notify, stops and disables a unit', async () => {
    await lifecycle(name, () => systemctl('show', '-p', 'MainPID', '--value', name).trim());
  });

  it('a unit that does not exist fails the plan', async () => {
    const [r] = await plan([{ id: 'svc', type: 'service', properties: { name: `${name}-nope`, state: 'running' } }], ctx);
    assert.equal(r!.status, 'would_fail');
    assert.match(r!.message!, /systemd: no unit/);
  });
});

describe('service provider with OpenRC, for real', { skip: whyNoOpenrc }, () => {
  const name = `corral-test-svc-${randomBytes(4).toString('hex')}`;
  const script = `/etc/init.d/${name}`;
  before(() => {
    writeFileSync(script, `#!/sbin/openrc-run\ncommand=/bin/sleep\ncommand_args=infinity\ncommand_background=true\npidfile=/run/${name}.pid\n`, { mode: 0o755 });
  });
  after(() => {
    for (const args of [[name, 'stop'], ['del', name, 'default']]) {
      try {
        execFileSync(args[0] === 'del' ? 'rc-update' : 'rc-service', args, { stdio: 'ignore' });
      } catch {
        // already so
      }
    }
    rmSync(script, { force: true });
  });

  it('starts, enables, restarts on notify, stops and disables a service', async () => {
    await lifecycle(name, () => (existsSync(`/run/${name}.pid`) ? readFileSync(`/run/${name}.pid`, 'utf8').trim() : ''));
  });
});
