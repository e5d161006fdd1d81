import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RingBuffer } from '../../agent/ring-buffer.js';

describe('RingBuffer', () => {
  it('never holds more than its capacity and drops the oldest first', () => {
    const b = new RingBuffer<number>(8640);
    let dropped = 0;
    for (let i = 0; i < 10_000; i++) dropped += b.push(i);
    assert.equal(b.size, 8640);
    assert.equal(dropped, 10_000 - 8640);
    assert.equal(b.dropped, 10_000 - 8640);
    assert.deepEqual(b.peek(3), [1360, 1361, 1362]);
  });

  it('gives items back oldest first across the wrap-around', () => {
    const b = new RingBuffer<number>(4);
    for (let i = 1; i <= 6; i++) b.push(i);
    assert.deepEqual(b.peek(10), [3, 4, 5, 6]);
    assert.deepEqual(b.shift(3), [3, 4, 5]);
    b.push(7);
    b.push(8);
    assert.deepEqual(b.shift(10), [6, 7, 8]);
    assert.equal(b.size, 0);
    assert.deepEqual(b.shift(1), []);
  });

  it('puts a failed batch back in front, dropping the oldest of it if newer items took the room', () => {
    const b = new RingBuffer<number>(5);
    for (let i = 1; i <= 5; i++) b.push(i);
    const batch = b.shift(3);
    assert.equal(b.unshift(batch), 0);
    assert.deepEqual(b.peek(5), [1, 2, 3, 4, 5]);

    const taken = b.shift(3); // [1,2,3]
    b.push(6);
    b.push(7); // room left for only one of the three
    assert.equal(b.unshift(taken), 2);
    assert.deepEqual(b.peek(5), [3, 4, 5, 6, 7]);
    assert.equal(b.dropped, 2);
  });

  it('refuses a capacity below 1', () => {
    assert.throws(() => new RingBuffer(0), RangeError);
  });
});
