// Sends attributes on every (re)connect and whenever a periodic re-read differs from
// what was last sent on this link (DESIGN.md: "Sent on connect and when they change").
import type { Attributes } from '../common/protocol.js';
import type { Logger } from './logger.js';

export interface AttributesSink {
  readonly canSend: boolean;
  send(attributes: Attributes): Promise<void>;
}

export class AttributesReporter {
  private lastSent: string | null = null;
  /** Refreshes run one after another, so two reads never race to send. */
  private queue: Promise<void> = Promise.resolve();
  latest: Attributes | null = null;

  constructor(
    private readonly collect: () => Promise<Attributes>,
    private readonly sink: AttributesSink,
    private readonly log: Logger,
  ) {}

  /** Re-reads the attributes and sends them if the link is accepted and they changed (or `force`). */
  refresh(force = false): Promise<void> {
    this.queue = this.queue.then(() => this.run(force));
    return this.queue;
  }

  /** The link dropped: whatever was sent is forgotten, so the next accepted link gets a full copy. */
  linkLost(): void {
    this.lastSent = null;
  }

  private async run(force: boolean): Promise<void> {
    try {
      const attributes = await this.collect();
      this.latest = attributes;
      const json = JSON.stringify(attributes);
      if (!this.sink.canSend || (!force && json === this.lastSent)) return;
      await this.sink.send(attributes);
      this.log.info({ reason: force ? 'accepted link' : 'changed' }, 'sent attributes');
      this.lastSent = json;
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'could not send attributes; they go with the next refresh');
    }
  }
}
