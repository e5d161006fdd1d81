// service: name, state (running | stopped), enabled (started at boot), manager (systemd or
// openrc, detected when not given). A property not given is left alone. A notify restarts
// the service (refresh), unless it is meant to be stopped. read() only asks: is-enabled and
// is-active (or rc-update show and rc-service status) never change anything.
import { failure, display, runFile, type Command } from './run-file.js';
import { detectServiceManager, machineProbe, serviceManagerNamed } from './service-managers/detect.js';
import { checkServiceName, type ServiceManager, type ServiceManagerName } from './service-managers/types.js';
import { ConvergeError, optBool, optStr, str, type CommandOutput, type ConvergeResult, type DiffResult, type Props, type Provider, type ResourceDiff } from './types.js';

const READ_TIMEOUT_MS = 30_000;
/** systemd's own start timeout is 90 s; leave room for a stop followed by a start. */
const CHANGE_TIMEOUT_MS = 300_000;

export interface ServiceState {
  manager: ServiceManagerName;
  running: boolean;
  enabled: boolean;
  /** The manager's word for the boot state, e.g. "static" or "masked". */
  enabled_state: string;
}

function wantedState(props: Props): 'running' | 'stopped' | undefined {
  const v = optStr(props, 'state');
  if (v !== undefined && v !== 'running' && v !== 'stopped') throw new Error(`state must be running or stopped, not "${v}"`);
  return v;
}

function managerFor(props: Props): ServiceManager {
  const forced = optStr(props, 'manager');
  if (forced !== undefined && forced !== 'systemd' && forced !== 'openrc') throw new Error(`manager must be systemd or openrc, not "${forced}"`);
  return detectServiceManager(machineProbe, forced);
}

/** Runs one change and keeps what it printed; a non-zero exit names the manager and its stderr. */
async function change(m: ServiceManager, cmd: Command, outputs: CommandOutput[]): Promise<void> {
  const out = await runFile(cmd, CHANGE_TIMEOUT_MS);
  outputs.push(out);
  if (out.exit_code !== 0) throw new ConvergeError(failure(m.name, cmd, out).message, joined(outputs));
}

function joined(outputs: CommandOutput[]): CommandOutput {
  return {
    stdout: outputs.map((o) => o.stdout).join(''),
    stderr: outputs.map((o) => o.stderr).join(''),
    exit_code: outputs.at(-1)?.exit_code ?? 0,
  };
}

export const serviceProvider: Provider<ServiceState> = {
  type: 'service',

  async read(props) {
    const name = checkServiceName(str(props, 'name'));
    wantedState(props);
    const m = managerFor(props);
    const en = m.parseEnabled(name, await runFile(m.enabledCommand(name), READ_TIMEOUT_MS));
    const running = m.parseRunning(name, await runFile(m.runningCommand(name), READ_TIMEOUT_MS));
    const enabled = optBool(props, 'enabled');
    // Fail the plan rather than promise a change that enable/disable cannot make.
    if (enabled !== undefined && enabled !== en.enabled && !en.changeable) {
      throw new Error(`${m.name}: ${name} is ${en.detail}, so it cannot be ${enabled ? 'enabled' : 'disabled'} (it has no [Install] section of its own)`);
    }
    return { manager: m.name, running, enabled: en.enabled, enabled_state: en.detail };
  },

  diff(desired, current): DiffResult {
    const diff: ResourceDiff = { properties: {} };
    const words: string[] = [];
    const state = wantedState(desired);
    const now = current.running ? 'running' : 'stopped';
    if (state !== undefined && state !== now) {
      diff.properties.state = { before: now, after: state };
      words.push(state === 'running' ? 'start' : 'stop');
    }
    const enabled = optBool(desired, 'enabled');
    if (enabled !== undefined && enabled !== current.enabled) {
      diff.properties.enabled = { before: current.enabled, after: enabled };
      words.push(enabled ? 'enable' : 'disable');
    }
    if (words.length === 0) return { changed: false, diff };
    return { changed: true, diff, message: `would ${words.join(' and ')}` };
  },

  async converge(desired, current, ctx) {
    const name = checkServiceName(str(desired, 'name'));
    const m = serviceManagerNamed(current.manager);
    const changes = serviceProvider.diff(desired, current).diff.properties;
    const cmds: Command[] = [];
    // Boot state first: a service that fails to start is still set up for the next boot.
    if (changes.enabled) cmds.push(changes.enabled.after ? m.enable(name) : m.disable(name));
    if (changes.state) cmds.push(changes.state.after === 'running' ? m.start(name) : m.stop(name));
    const outputs: CommandOutput[] = [];
    for (const cmd of cmds) {
      ctx.mutating(display(cmd));
      await change(m, cmd, outputs);
    }
    const done = [changes.enabled && (changes.enabled.after ? 'enabled' : 'disabled'), changes.state && (changes.state.after === 'running' ? 'started' : 'stopped')];
    return { message: done.filter(Boolean).join(', '), output: joined(outputs) };
  },

  async refresh(desired, ctx): Promise<ConvergeResult> {
    const name = checkServiceName(str(desired, 'name'));
    // Restarting would start a service that is meant to be stopped.
    if (wantedState(desired) === 'stopped') return { message: 'not restarted (state: stopped)' };
    const m = managerFor(desired);
    const cmd = m.restart(name);
    ctx.mutating(display(cmd));
    const outputs: CommandOutput[] = [];
    await change(m, cmd, outputs);
    return { message: 'restarted', output: joined(outputs) };
  },
};
