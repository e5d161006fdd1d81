// The link's pure parts: message checks, frame sizing, URLs. The link itself is in link.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { samplesThatFit, encodedSize } from '../../agent/link/frames.js';
import { parseServerMessage } from '../../agent/link/messages.js';
import { linkTarget, normaliseOrchestratorUrl, parseCertFingerprint } from '../../agent/link/url.js';
import { METRICS_FRAME_BYTES, MAX_SAMPLES_PER_MESSAGE } from '../../common/protocol.js';
import { fakeSample } from './support/samples.js';

describe('parseServerMessage', () => {
  it('accepts each server message type', () => {
    assert.deepEqual(parseServerMessage('{"type":"hello","protocol_version":"1.0","nonce":"abc"}'), { ok: true, message: { type: 'hello', protocol_version: '1.0', nonce: 'abc' } });
    assert.deepEqual(parseServerMessage('{"type":"welcome","status":"pending","heartbeat_s":10}'), { ok: true, message: { type: 'welcome', status: 'pending', heartbeat_s: 10 } });
    assert.deepEqual(parseServerMessage('{"type":"status","status":"rejected"}'), { ok: true, message: { type: 'status', status: 'rejected' } });
    assert.deepEqual(parseServerMessage('{"type":"pong","ts":5}'), { ok: true, message: { type: 'pong', ts: 5 } });
    assert.deepEqual(parseServerMessage('{"type":"error","code":"x","message":"y","extra":1}'), { ok: true, message: { type: 'error', code: 'x', message: 'y' } });
  });

  it('turns every malformed frame into a reason, never an exception', () => {
    const bad = [
      '',
      'not json',
      '[1,2]',
      'null',
      '42',
      '{}',
      '{"type":7}',
      '{"type":"surprise"}',
      '{"type":"hello","nonce":"abc"}',
      '{"type":"hello","protocol_version":1,"nonce":"abc"}',
      '{"type":"hello","protocol_version":"1.0","nonce":""}',
      '{"type":"welcome","status":"maybe","heartbeat_s":10}',
      '{"type":"welcome","status":"accepted","heartbeat_s":-1}',
      '{"type":"welcome","status":"accepted","heartbeat_s":"10"}',
      '{"type":"status","status":null}',
      '{"type":"pong","ts":"now"}',
      '{"type":"__proto__"}',
    ];
    for (const text of bad) {
      const r = parseServerMessage(text);
      assert.equal(r.ok, false, text);
      assert.ok(!r.ok && r.reason.length > 0);
    }
  });
});

describe('samplesThatFit', () => {
  it('stops at MAX_SAMPLES_PER_MESSAGE', () => {
    const samples = Array.from({ length: 1200 }, (_, i) => fakeSample(i));
    assert.equal(samplesThatFit(samples), MAX_SAMPLES_PER_MESSAGE);
    assert.equal(samplesThatFit(samples.slice(0, 7)), 7);
    assert.equal(samplesThatFit([]), 0);
  });

  it('keeps a frame under METRICS_FRAME_BYTES when samples are large (many disks)', () => {
    const samples = Array.from({ length: 500 }, (_, i) => fakeSample(i, 40));
    assert.ok(encodedSize({ type: 'metrics', samples }) > METRICS_FRAME_BYTES, 'the test needs samples that do not fit');
    const n = samplesThatFit(samples);
    assert.ok(n > 0 && n < 500);
    assert.ok(encodedSize({ type: 'metrics', samples: samples.slice(0, n) }) <= METRICS_FRAME_BYTES);
  });

  it('returns 0 for a single sample that cannot fit', () => {
    assert.equal(samplesThatFit([fakeSample(1, 20_000)]), 0);
  });
});

describe('orchestrator URLs', () => {
  it('derives the link URL from the base URL', () => {
    assert.deepEqual(linkTarget('https://orch.example:7390'), { url: 'wss://orch.example:7390/agent/v1', host: 'orch.example', port: 7390, secure: true });
    assert.deepEqual(linkTarget('http://10.0.0.5:7390/'), { url: 'ws://10.0.0.5:7390/agent/v1', host: '10.0.0.5', port: 7390, secure: false });
    assert.deepEqual(linkTarget('https://[fd00::1]:7390'), { url: 'wss://[fd00::1]:7390/agent/v1', host: 'fd00::1', port: 7390, secure: true });
    assert.equal(linkTarget('https://orch').port, 443);
    assert.equal(normaliseOrchestratorUrl('HTTPS://Orch.Example:7390/'), 'https://orch.example:7390');
  });

  it('refuses what is not a base URL', () => {
    for (const bad of ['orch:7390', 'ws://orch:7390', 'https://u:p@orch:7390', 'https://orch:7390/x', 'https://orch:7390/?a=1', '']) {
      assert.throws(() => normaliseOrchestratorUrl(bad), Error, bad);
    }
  });

  it('normalises certificate fingerprints and refuses short ones', () => {
    const hex = 'ab'.repeat(32);
    const expected = 'AB:'.repeat(31) + 'AB';
    assert.equal(parseCertFingerprint(hex), expected);
    assert.equal(parseCertFingerprint('sha256:' + expected.toLowerCase()), expected);
    assert.throws(() => parseCertFingerprint('AB:CD'), /not a SHA-256/);
  });
});
