/**
 * Runs a task now and then every `intervalMs` while the page is visible
 * (document.visibilityState), never two runs at once. A hidden tab makes no
 * requests; coming back runs the task at once. Live views use one of these
 * until the orchestrator pushes events (a later SSE stream replaces it).
 */
export class Poller {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running = false;
  private busy: Promise<void> | null = null;

  constructor(
    private readonly task: () => Promise<void>,
    private readonly intervalMs: number,
  ) {}

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
