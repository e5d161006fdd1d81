import { Poller } from '../utils/poller.js';

/**
 * One record that is still changing (an operation running, a batch rolling out, a drift
 * check in progress), re-read every `intervalMs` until `finished` says it is final, then
 * left alone. A failed re-read is reported once, not every second.
 */
export class LiveRecord<T> {
  value = $state<T | undefined>();
  /** The first read finished (found or not). */
  loaded = $state(false);
  /** Still being re-read: the record is not final yet. */
  live = $state(false);

  private readonly poller: Poller;
  private failing = false;

  constructor(
    private readonly read: (quiet: boolean) => Promise<T | undefined>,
    private readonly finished: (value: T) => boolean,
    intervalMs = 1000,
  ) {
    this.poller = new Poller(() => this.load(), intervalMs);
  }

  start(): void {
    this.live = true;
    this.poller.start();
  }

  stop(): void {
    this.live = false;
    this.poller.stop();
  }

  /** Reads again now and keeps watching if the record is not final (after an action changed it). */
  restart(): void {
    this.failing = false;
    this.start();
    void this.poller.now();
  }

  private async load(): Promise<void> {
    const value = await this.read(this.failing || this.loaded);
    this.loaded = true;
    if (value === undefined) {
      this.failing = true;
      return;
    }
    this.failing = false;
    this.value = value;
    if (this.finished(value)) this.stop();
  }
}
