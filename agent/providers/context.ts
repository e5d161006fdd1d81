// What a provider gets besides the properties: where "/" is (tests converge into a temp
// directory), a logger, and the dry-run guard that makes a plan unable to change anything.
import path from 'node:path';
import type { Logger } from '../logger.js';

export class DryRunViolation extends Error {
  constructor(what: string) {
    super(`refused during a plan (dry run): ${what}`);
    this.name = 'DryRunViolation';
  }
}

export interface ContextOptions {
  /** Prefix for every managed path; "/" on a real machine. */
  root?: string;
  logger: Logger;
  dryRun?: boolean;
}

export class ProviderContext {
  readonly root: string;
  readonly logger: Logger;
  readonly dryRun: boolean;

  constructor(options: ContextOptions) {
    this.root = path.resolve(options.root ?? '/');
    this.logger = options.logger;
    this.dryRun = options.dryRun ?? false;
  }

  /** A resource's absolute path as seen on this machine (under the root prefix). */
  path(p: string): string {
    if (!path.isAbsolute(p)) throw new Error(`path must be absolute: ${p}`);
    return this.root === '/' ? path.normalize(p) : path.join(this.root, p);
  }

  /** Every change goes through here first: throws during a plan. */
  mutating(what: string): void {
    if (this.dryRun) throw new DryRunViolation(what);
    this.logger.debug({ change: what }, 'converging');
  }

  /** A context for the same machine that may not change it. */
  forPlan(): ProviderContext {
    return new ProviderContext({ root: this.root, logger: this.logger, dryRun: true });
  }
}
