import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startPeriodic } from '../../orchestrator/services/periodic.js';

describe('startPeriodic', () => {
  it('runs at once, then on every interval, reports failures and keeps going, and stops', async () => {
    let runs = 0;
    const errors: unknown[] = [];
    const stop = startPeriodic(
      () => {
        runs++;
        if (runs === 2) throw new Error('second run fails');
      },
      20,
      (err) => errors.push(err),
    );
    assert.equal(runs, 1, 'ran at start');
    await new Promise((r) => setTimeout(r, 110));
    stop();
    const after = runs;
    assert.ok(after >= 3, `ran on the timer (${after} runs)`);
    assert.equal(errors.length, 1);
    await new Promise((r) => setTimeout(r, 60));
    assert.equal(runs, after, 'stopped');
  });

  it('does not keep the process alive', () => {
    const before = new Set(process.getActiveResourcesInfo());
    const stop = startPeriodic(() => undefined, 60_000, () => undefined);
    // An unref'd timer is not listed among the resources that keep the event loop alive.
    const active = process.getActiveResourcesInfo().filter((r) => r === 'Timeout');
    stop();
    assert.equal(active.length, [...before].filter((r) => r === 'Timeout').length);
  });
});
