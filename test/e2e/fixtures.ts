import { test as base } from '@playwright/test';
import { startOrchestrator, type RunningOrchestrator } from './support/orchestrator.js';
import type { SshKey } from './support/ssh.js';

interface Options {
  /** The first admin's key, passed as --admin-key; without it the orchestrator prints a setup link. */
  adminKey: SshKey | undefined;
}

interface Fixtures {
  /** A fresh orchestrator with its own data directory, stopped and removed after the test. */
  orchestrator: RunningOrchestrator;
}

export const test = base.extend<Options & Fixtures>({
  adminKey: [undefined, { option: true }],
  orchestrator: async ({ adminKey }, use) => {
    const orchestrator = await startOrchestrator({ adminKeyFile: adminKey ? `${adminKey.file}.pub` : undefined });
    await use(orchestrator);
    await orchestrator.stop();
  },
});

export { expect } from '@playwright/test';
