import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MetricsOutbox } from '../../agent/outbox.js';
import { METRICS_FRAME_BYTES, type MetricsSample } from '../../common/protocol.js';
import { fakeSample } from './support/samples.js';
import { captureLog } from './support/log-capture.js';

class Sink {
  canSend = true;
  failNext = 0;
  batches: MetricsSample[][] = [];
  async send(samples: MetricsSample[]): Promise<void> {
    await new Promise((r) => setImmediate(r));
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error('socket closed');
    }
    this.batches.push(samples);
  }
}

describe('MetricsOutbox', () => {
  it('sends a backlog oldest first in chunks of at most 500 samples', async () => {
    const sink = new Sink();
    sink.canSend = false;
    const log = captureLog();
    const outbox = new MetricsOutbox(sink, log.logger);
    for (let i = 0; i < 1200; i++) outbox.add(fakeSample(i));
    await outbox.flush();
    assert.equal(sink.batches.length, 0, 'nothing leaves while the sink is closed');
    sink.canSend = true;
    await outbox.flush();
    assert.deepEqual(sink.batches.map((b) => b.length), [500, 500, 200]);
    assert.deepEqual(sink.batches.flat().map((s) => s.ts), Array.from({ length: 1200 }, (_, i) => i));
    assert.equal(outbox.size, 0);
    assert.ok(log.find((l) => l.msg === 'sent buffered metrics' && l.samples === 1200));
  });

  it('keeps frames under the byte limit', async () => {
    const sink = new Sink();
    const outbox = new MetricsOutbox(sink, captureLog().logger);
    for (let i = 0; i < 500; i++) outbox.add(fakeSample(i, 40));
    await outbox.flush();
    assert.ok(sink.batches.length > 1);
    for (const b of sink.batches) assert.ok(Buffer.byteLength(JSON.stringify({ type: 'metrics', samples: b })) <= METRICS_FRAME_BYTES);
    assert.equal(sink.batches.flat().length, 500);
  });

  it('keeps samples whose send failed, in order, for the next flush', async () => {
    const sink = new Sink();
    sink.failNext = 1;
    const outbox = new MetricsOutbox(sink, captureLog().logger);
    for (let i = 0; i < 10; i++) outbox.add(fakeSample(i));
    await outbox.flush();
    assert.equal(outbox.size, 10);
    await outbox.flush();
    assert.deepEqual(sink.batches.flat().map((s) => s.ts), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('is bounded: a long outage drops the oldest samples, counts and logs it', async () => {
    const sink = new Sink();
    sink.canSend = false;
    const log = captureLog();
    const outbox = new MetricsOutbox(sink, log.logger, 100);
    for (let i = 0; i < 250; i++) outbox.add(fakeSample(i));
    assert.equal(outbox.size, 100);
    assert.equal(outbox.dropped, 150);
    assert.equal(log.lines.filter((l) => /buffer is full/.test(l.msg ?? '')).length, 1, 'one warning per outage, not one per sample');
    sink.canSend = true;
    await outbox.flush();
    assert.deepEqual(sink.batches.flat().map((s) => s.ts)[0], 150, 'the newest 100 survive');
    assert.ok(log.find((l) => l.dropped === 150));
  });
});
