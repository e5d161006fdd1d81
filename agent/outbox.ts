// Every metrics sample goes through this bounded buffer, live ones included: one path
// for "send now" and "send after an outage", oldest first. Samples leave the buffer only
// when their frame was handed to the socket; a failed send puts them back in front.
import type { MetricsSample } from '../common/protocol.js';
import { samplesThatFit } from './link/frames.js';
import type { Logger } from './logger.js';
import { RingBuffer } from './ring-buffer.js';

/** 24 h of samples at the default 10 s interval. */
export const DEFAULT_BUFFER_CAPACITY = 8640;

export interface MetricsSink {
  readonly canSend: boolean;
  send(samples: MetricsSample[]): Promise<void>;
}

export class MetricsOutbox {
  private readonly buffer: RingBuffer<MetricsSample>;
  private flushing = false;
  /** Drops not yet reported in a log line. */
  private unreportedDrops = 0;

  constructor(
    private readonly sink: MetricsSink,
    private readonly log: Logger,
    capacity = DEFAULT_BUFFER_CAPACITY,
  ) {
    this.buffer = new RingBuffer(capacity);
  }

  get size(): number {
    return this.buffer.size;
  }

  get dropped(): number {
    return this.buffer.dropped;
  }

  add(sample: MetricsSample): void {
    if (this.buffer.push(sample) && this.unreportedDrops++ === 0) {
      this.log.warn({ capacity: this.buffer.capacity }, 'the metrics buffer is full; dropping the oldest samples until the link is back');
    }
  }

  /** Sends everything buffered while the sink accepts it; concurrent calls join the running flush. */
  async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    let sent = 0;
    try {
      while (this.buffer.size > 0 && this.sink.canSend) {
        const n = samplesThatFit(this.buffer.peek(this.buffer.size));
        if (n === 0) {
          this.buffer.shift(1);
          this.log.error('dropping a metrics sample too large for one frame');
          continue;
        }
        const batch = this.buffer.shift(n);
        try {
          await this.sink.send(batch);
          sent += batch.length;
        } catch (err) {
          this.buffer.unshift(batch);
          this.log.debug({ err: (err as Error).message, buffered: this.buffer.size }, 'metrics stay buffered until the link is back');
          return;
        }
      }
    } finally {
      this.flushing = false;
      if (sent > 1) this.log.info({ samples: sent }, 'sent buffered metrics');
      if (sent > 0 && this.unreportedDrops > 0) {
        this.log.warn({ dropped: this.unreportedDrops }, 'metrics samples were dropped while the link was down');
        this.unreportedDrops = 0;
      }
    }
  }
}
