// What the service provider needs from an init system: commands built by pure functions
// (unit-tested without it running) and parsers for what its status commands print.
import type { SERVICE_MANAGERS } from '../../../common/modules/index.js';
import type { Command } from '../run-file.js';
import type { CommandOutput } from '../types.js';

export type ServiceManagerName = (typeof SERVICE_MANAGERS)[number];

export interface EnabledState {
  enabled: boolean;
  /** The manager's own word for it ("static", "masked", "default"), shown in the observed state. */
  detail: string;
  /** False when enable/disable cannot change it (a systemd unit with no [Install] section). */
  changeable: boolean;
}

export interface ServiceManager {
  readonly name: ServiceManagerName;
  enabledCommand(name: string): Command;
  /** Throws when the service does not exist, so a typo fails the plan instead of "would start". */
  parseEnabled(name: string, out: CommandOutput): EnabledState;
  runningCommand(name: string): Command;
  parseRunning(name: string, out: CommandOutput): boolean;
  start(name: string): Command;
  stop(name: string): Command;
  restart(name: string): Command;
  enable(name: string): Command;
  disable(name: string): Command;
}

/** Unit and init-script names: no leading "-" (it would read as an option), no spaces or slashes. */
export const SERVICE_NAME = /^[A-Za-z0-9_][A-Za-z0-9@._:+-]{0,254}$/;

export function checkServiceName(name: string): string {
  if (!SERVICE_NAME.test(name)) throw new Error(`"${name}" is not a valid service name`);
  return name;
}
