// Reconnect delays: exponential with "full jitter" (a uniform pick in [0, ceiling)),
// so a fleet that lost its orchestrator at the same moment does not come back in lock step.

export interface BackoffOptions {
  /** First ceiling, in ms (default 1 s). */
  baseMs?: number;
  /** Largest delay, in ms (default 60 s, as DESIGN.md caps reconnects). */
  capMs?: number;
  /** Injected for tests; defaults to Math.random. */
  random?: () => number;
}

export class Backoff {
  readonly baseMs: number;
  readonly capMs: number;
  private readonly random: () => number;
  private attempt = 0;

  constructor(options: BackoffOptions = {}) {
    this.baseMs = options.baseMs ?? 1000;
    this.capMs = options.capMs ?? 60_000;
    this.random = options.random ?? Math.random;
  }

  /** The ceiling of the next delay: base * 2^attempt, capped. */
  ceiling(): number {
    // The exponent is clamped so 2 ** attempt never overflows after days of retrying.
    return Math.min(this.capMs, this.baseMs * 2 ** Math.min(this.attempt, 30));
  }

  /** The next delay in ms, uniform in [0, ceiling); each call raises the ceiling. */
  next(): number {
    const delay = Math.floor(this.random() * this.ceiling());
    this.attempt++;
    return Math.min(delay, this.capMs);
  }

  /** For failures that retrying soon cannot fix (protocol mismatch, refused key): wait the cap. */
  max(): number {
    this.attempt++;
    return this.capMs;
  }

  /** After a link stayed up long enough, the next failure starts from the base again. */
  reset(): void {
    this.attempt = 0;
  }

  get attempts(): number {
    return this.attempt;
  }
}
