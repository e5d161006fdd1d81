import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Backoff } from '../../agent/backoff.js';

describe('Backoff', () => {
  it('doubles its ceiling from 1 s and caps it at 60 s', () => {
    const b = new Backoff({ random: () => 0 });
    const ceilings: number[] = [];
    for (let i = 0; i < 10; i++) {
      ceilings.push(b.ceiling());
      b.next();
    }
    assert.deepEqual(ceilings, [1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000, 60000]);
  });

  it('draws each delay uniformly from [0, ceiling) (full jitter)', () => {
    const low = new Backoff({ random: () => 0 });
    const high = new Backoff({ random: () => 0.999999 });
    for (let i = 0; i < 8; i++) {
      const ceiling = high.ceiling();
      assert.equal(low.next(), 0);
      const d = high.next();
      assert.ok(d < ceiling && d >= ceiling * 0.99, `${d} near the top of [0, ${ceiling})`);
    }
    const real = new Backoff();
    const seen: number[] = [];
    for (let i = 0; i < 2000; i++) {
      const ceiling = real.ceiling();
      const d = real.next();
      assert.ok(d >= 0 && d < ceiling && d <= 60_000, `${d} in [0, ${ceiling})`);
      if (ceiling === 60_000) seen.push(d);
    }
    // Jitter spreads the capped delays over the whole range, not around one value.
    assert.ok(Math.min(...seen) < 10_000 && Math.max(...seen) > 50_000);
  });

  it('never exceeds the cap, even after days of attempts', () => {
    const b = new Backoff({ random: () => 0.9999999 });
    for (let i = 0; i < 10_000; i++) assert.ok(b.next() <= 60_000);
    assert.equal(b.ceiling(), 60_000);
  });

  it('max() waits the cap, and reset() starts from the base again', () => {
    const b = new Backoff({ random: () => 0.5 });
    b.next();
    b.next();
    assert.equal(b.max(), 60_000);
    b.reset();
    assert.equal(b.ceiling(), 1000);
    assert.equal(b.next(), 500);
  });

  it('takes other bases and caps', () => {
    const b = new Backoff({ baseMs: 10, capMs: 40, random: () => 0.5 });
    assert.deepEqual([b.next(), b.next(), b.next(), b.next()], [5, 10, 20, 20]);
  });
});
