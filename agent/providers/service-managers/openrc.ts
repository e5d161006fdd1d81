// OpenRC (Alpine, Gentoo). `rc-service NAME status` exits 0 only when started; "enabled"
// means in the default runlevel, which is where `rc-update add` puts a service by default.
import type { CommandOutput } from '../types.js';
import type { EnabledState, ServiceManager } from './types.js';

const RUNLEVEL = 'default';

/** `rc-update show default`: "  sshd | default" per service in the runlevel. */
export function parseRcUpdateShow(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const [name, levels] = line.split('|').map((s) => s.trim());
    if (name && levels?.split(/\s+/).includes(RUNLEVEL)) names.add(name);
  }
  return names;
}

export const openrc: ServiceManager = {
  name: 'openrc',

  enabledCommand: () => ({ file: 'rc-update', args: ['show', RUNLEVEL] }),

  parseEnabled(name, out: CommandOutput): EnabledState {
    if (out.exit_code !== 0) throw new Error(`openrc: rc-update show exited ${out.exit_code ?? 'on a signal'}: ${out.stderr.trim()}`);
    const enabled = parseRcUpdateShow(out.stdout).has(name);
    return { enabled, detail: enabled ? RUNLEVEL : 'not in the default runlevel', changeable: true };
  },

  runningCommand: (name) => ({ file: 'rc-service', args: [name, 'status'] }),

  parseRunning(name, out) {
    if (/does not exist/.test(out.stderr + out.stdout)) throw new Error(`openrc: no service "${name}" (no /etc/init.d/${name})`);
    return out.exit_code === 0;
  },

  start: (name) => ({ file: 'rc-service', args: [name, 'start'] }),
  stop: (name) => ({ file: 'rc-service', args: [name, 'stop'] }),
  restart: (name) => ({ file: 'rc-service', args: [name, 'restart'] }),
  enable: (name) => ({ file: 'rc-update', args: ['add', name, RUNLEVEL] }),
  disable: (name) => ({ file: 'rc-update', args: ['del', name, RUNLEVEL] }),
};
