// The common shape of a resource provider (one file per type, registered in registry.ts).
// read() looks at the machine and never changes it; diff() is pure; converge() makes the change.
// Plan calls read and diff only; apply calls all three (engine.ts).
import type { PropertyValue, ResourceType } from '../../common/modules/index.js';
import type { ResourceDiff } from '../../common/schemas/state.js';
import type { ProviderContext } from './context.js';

/** A resource's properties after templates were expanded. */
export type Props = Record<string, PropertyValue>;

/** Per property before/after, and a unified diff of a file's contents: the shape the API shows. */
export type { ResourceDiff };

export interface DiffResult {
  changed: boolean;
  diff: ResourceDiff;
  /** A short human line, e.g. "would run (no guard)". */
  message?: string;
}

export interface CommandOutput {
  stdout: string;
  stderr: string;
  exit_code: number | null;
}

export interface ConvergeResult {
  message?: string;
  output?: CommandOutput;
}

/** A converge that ran but did not succeed (a script exiting non-zero), with what it printed. */
export class ConvergeError extends Error {
  constructor(
    message: string,
    readonly output?: CommandOutput,
  ) {
    super(message);
    this.name = 'ConvergeError';
  }
}

export interface Provider<Current = unknown> {
  readonly type: ResourceType;
  /** Reads the machine's current state for these properties. Never changes anything. */
  read(props: Props, ctx: ProviderContext): Promise<Current>;
  /** Pure: what converge would change. */
  diff(desired: Props, current: Current): DiffResult;
  /** Makes the machine match `desired`. Only called when diff said changed. */
  converge(desired: Props, current: Current, ctx: ProviderContext): Promise<ConvergeResult>;
  /** What a `notify` does to this resource (a script re-runs). Absent: the type cannot be notified. */
  refresh?(desired: Props, ctx: ProviderContext): Promise<ConvergeResult>;
}

export function str(props: Props, key: string): string {
  const v = props[key];
  if (typeof v !== 'string') throw new Error(`property "${key}" is required`);
  return v;
}

export function optStr(props: Props, key: string): string | undefined {
  const v = props[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new Error(`property "${key}" must be a string`);
  return v;
}

export function optBool(props: Props, key: string): boolean | undefined {
  const v = props[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'boolean') throw new Error(`property "${key}" must be a boolean`);
  return v;
}

export function ensureOf(props: Props): 'present' | 'absent' {
  const v = optStr(props, 'ensure') ?? 'present';
  if (v !== 'present' && v !== 'absent') throw new Error(`ensure must be present or absent, not "${v}"`);
  return v;
}
