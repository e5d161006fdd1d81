// Buffered metrics leave in messages of at most MAX_SAMPLES_PER_MESSAGE samples and
// under METRICS_FRAME_BYTES, whichever limit a machine with many disks reaches first.
import { METRICS_FRAME_BYTES, MAX_SAMPLES_PER_MESSAGE, type MetricsMessage, type MetricsSample } from '../../common/protocol.js';

export function encodedSize(message: unknown): number {
  return Buffer.byteLength(JSON.stringify(message), 'utf8');
}

/**
 * How many of the given samples (oldest first) fit in one metrics message: up to the
 * count limit, halved until the frame is under the byte limit. 0 means even the first
 * sample alone is too large (it can only be dropped).
 */
export function samplesThatFit(samples: MetricsSample[], maxBytes = METRICS_FRAME_BYTES, maxCount = MAX_SAMPLES_PER_MESSAGE): number {
  let n = Math.min(samples.length, maxCount);
  while (n > 0) {
    const message: MetricsMessage = { type: 'metrics', samples: samples.slice(0, n) };
    if (encodedSize(message) <= maxBytes) return n;
    n = Math.floor(n / 2);
  }
  return 0;
}
