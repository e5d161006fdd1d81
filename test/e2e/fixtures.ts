import { test as base, expect } from '@playwright/test';
import { startOrchestrator, type RunningOrchestrator } from './support/orchestrator.js';
import type { SshKey } from './support/ssh.js';

interface Options {
  /** The first admin's key, passed as --admin-key; without it the orchestrator prints a setup link. */
  adminKey: SshKey | undefined;
}

interface Fixtures {
  /** A fresh orchestrator with its own data directory, stopped and removed after the test. */
  orchestrator: RunningOrchestrator;
  /** Fails any test whose page broke the Content-Security-Policy or threw an uncaught error. */
  pageHealth: void;
}

export const test = base.extend<Options & Fixtures>({
  adminKey: [undefined, { option: true }],
  orchestrator: async ({ adminKey }, use) => {
    const orchestrator = await startOrchestrator({ adminKeyFile: adminKey ? `${adminKey.file}.pub` : undefined });
    await use(orchestrator);
    await orchestrator.stop();
  },
  pageHealth: [
    async ({ page }, use) => {
      const problems: string[] = [];
      page.on('console', (msg) => {
        if (msg.type() === 'error' && /Content Security Policy/i.test(msg.text())) problems.push(msg.text());
      });
      page.on('pageerror', (err) => problems.push(`uncaught: ${err.message}`));
      await use();
      expect(problems, 'no CSP violations or uncaught errors in the page').toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };
