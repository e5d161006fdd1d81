// Which init system runs this machine. Installed is not enough: systemctl on a machine (or
// container) whose PID 1 is not systemd cannot start anything, and reading its answers as
// "stopped" would be a lie, so a manager counts only when its runtime directory exists.
import { existsSync } from 'node:fs';
import { onPath } from '../run-file.js';
import { openrc } from './openrc.js';
import { systemd } from './systemd.js';
import type { ServiceManager, ServiceManagerName } from './types.js';

/** A manager by name, for converge: its read already found it running. */
export function serviceManagerNamed(name: ServiceManagerName): ServiceManager {
  return name === 'systemd' ? systemd : openrc;
}

export interface ServiceProbe {
  exists(path: string): boolean;
  onPath(exe: string): boolean;
}

export const machineProbe: ServiceProbe = { exists: existsSync, onPath: (exe) => onPath(exe) };

/** systemd creates /run/systemd/system when it boots as PID 1 (what sd_booted() checks). */
const systemdRunning = (p: ServiceProbe) => p.exists('/run/systemd/system');
const openrcRunning = (p: ServiceProbe) => p.onPath('rc-service') && p.exists('/run/openrc');

/** The running manager (or the forced one, which must be running too); throws saying what is missing. */
export function detectServiceManager(probe: ServiceProbe, forced?: ServiceManagerName): ServiceManager {
  if (forced === 'systemd') {
    if (systemdRunning(probe)) return systemd;
    throw new Error('service manager systemd was asked for, but systemd is not running on this machine (no /run/systemd/system: PID 1 is not systemd)');
  }
  if (forced === 'openrc') {
    if (openrcRunning(probe)) return openrc;
    throw new Error(`service manager openrc was asked for, but ${probe.onPath('rc-service') ? 'OpenRC is not started (no /run/openrc)' : 'rc-service is not installed'}`);
  }
  if (systemdRunning(probe)) return systemd;
  if (openrcRunning(probe)) return openrc;
  const found: string[] = [];
  if (probe.onPath('systemctl')) found.push('systemd is installed but not PID 1 (no /run/systemd/system), so it cannot start or stop services');
  if (probe.onPath('rc-service')) found.push('OpenRC is installed but not started (no /run/openrc)');
  throw new Error(`no service manager is running on this machine: ${found.length > 0 ? found.join('; ') : 'neither systemd nor OpenRC is installed'}`);
}
