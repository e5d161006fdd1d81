// systemd: is-enabled / is-active answer through their output word (their exit codes also
// mean "no" for states that exist), start/stop/restart/enable/disable change it.
import type { CommandOutput } from '../types.js';
import type { EnabledState, ServiceManager } from './types.js';

const ENABLED = new Set(['enabled', 'enabled-runtime', 'alias', 'static', 'generated', 'transient']);
/** States `systemctl enable/disable` cannot change: the unit has no [Install] section or is not a file. */
const FIXED = new Set(['static', 'generated', 'transient', 'indirect']);
const RUNNING = new Set(['active', 'reloading', 'activating']);

function unitError(name: string, out: CommandOutput): Error {
  const said = (out.stderr.trim() || out.stdout.trim()).split('\n').slice(-4).join('\n');
  return new Error(`systemd: no unit "${name}" (systemctl is-enabled exited ${out.exit_code ?? 'on a signal'}${said ? `: ${said}` : ''})`);
}

const systemctl = (...args: string[]) => ({ file: 'systemctl', args });

export const systemd: ServiceManager = {
  name: 'systemd',

  enabledCommand: (name) => systemctl('is-enabled', name),

  parseEnabled(name, out): EnabledState {
    const word = out.stdout.trim().split('\n')[0] ?? '';
    // A missing unit prints nothing on stdout (or "not-found") and an error on stderr.
    if (word === '' || word === 'not-found') throw unitError(name, out);
    return { enabled: ENABLED.has(word), detail: word, changeable: !FIXED.has(word) };
  },

  runningCommand: (name) => systemctl('is-active', name),

  parseRunning(_name, out) {
    return RUNNING.has(out.stdout.trim().split('\n')[0] ?? '');
  },

  start: (name) => systemctl('start', name),
  stop: (name) => systemctl('stop', name),
  restart: (name) => systemctl('restart', name),
  enable: (name) => systemctl('enable', name),
  disable: (name) => systemctl('disable', name),
};
