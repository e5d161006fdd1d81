/**
 * Runs a task now and then every `intervalMs` while the page is visible
 * (document.visibilityState), never two runs at once. A hidden tab makes no
 * requests; coming back runs the task at once. Views fed by the live event stream
 * keep one as a slow fallback (setInterval changes the pace).
 */
export class Poller {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running = false;
  private busy: Promise<void> | null = null;
  /** When the last run finished (ms since the epoch), undefined before the first. */
  private lastRun: number | undefined;

  constructor(
    private readonly task: () => Promise<void>,
    private intervalMs: number,
  ) {}

  /** Changes the pace: the next run comes `intervalMs` after the last one finished (a first run is not delayed). */
  setInterval(intervalMs: number): void {
    if (intervalMs === this.intervalMs) return;
    this.intervalMs = intervalMs;
    if (this.running && this.timer !== undefined && this.lastRun !== undefined && !this.busy) {
      this.schedule(Math.max(0, this.lastRun + intervalMs - Date.now()));
    }
  }

  get active(): boolean {
    return this.running;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    document.addEventListener('visibilitychange', this.onVisibility);
    this.schedule(0);
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    document.removeEventListener('visibilitychange', this.onVisibility);
  }

  /** Runs the task now (after any run in flight) and restarts the clock. */
  async now(): Promise<void> {
    clearTimeout(this.timer);
    await this.run();
    this.lastRun = Date.now();
    this.schedule(this.intervalMs);
  }

  private readonly onVisibility = (): void => {
    if (document.visibilityState === 'hidden') clearTimeout(this.timer);
    else this.schedule(0);
  };

  private schedule(delay: number): void {
    clearTimeout(this.timer);
    if (!this.running || document.visibilityState === 'hidden') return;
    this.timer = setTimeout(() => void this.now(), delay);
  }

  private async run(): Promise<void> {
    while (this.busy) await this.busy;
    this.busy = this.task().finally(() => (this.busy = null));
    await this.busy;
  }
}
