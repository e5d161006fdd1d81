import { capIdleTime, parseResize, type Asciicast, type AsciicastEvent } from '../../../../common/asciicast.js';

export const REPLAY_SPEEDS = [1, 2, 4] as const;
export type ReplaySpeed = (typeof REPLAY_SPEEDS)[number];
/** Pauses longer than this (seconds) are shortened to it, unless the recording asks for less. */
export const REPLAY_MAX_IDLE_S = 2;
/** How often the progress bar moves while playing (ms). */
const TICK_MS = 50;

/** Where a replay draws: a read-only xterm. */
export interface ReplaySink {
  reset(): void;
  write(data: string): void;
  resize(size: { cols: number; rows: number }): void;
}

/**
 * Plays an asciicast v2 recording into a terminal: output and resize events at their
 * time (pauses capped), at 1x, 2x or 4x. Seeking replays from the start up to the point
 * at once, since a terminal's screen is the sum of everything written to it.
 */
export class ReplayPlayer {
  playing = $state(false);
  speed = $state<ReplaySpeed>(1);
  /** Seconds into the (idle-capped) recording. */
  position = $state(0);
  readonly duration: number;
  readonly size: { cols: number; rows: number };

  private readonly events: AsciicastEvent[];
  /** Index of the next event to write. */
  private next = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** When playing: the wall clock (ms) and position (s) of the last anchor. */
  private anchorAt = 0;
  private anchorPos = 0;

  constructor(
    cast: Asciicast,
    private readonly sink: () => ReplaySink | undefined,
  ) {
    const limit = cast.header.idle_time_limit !== undefined && cast.header.idle_time_limit > 0 ? Math.min(cast.header.idle_time_limit, REPLAY_MAX_IDLE_S) : REPLAY_MAX_IDLE_S;
    this.events = capIdleTime(
      cast.events.filter((e) => e.code === 'o' || e.code === 'r'),
      limit,
    );
    this.duration = this.events.at(-1)?.time ?? 0;
    this.size = { cols: cast.header.width, rows: cast.header.height };
  }

  get ended(): boolean {
    return this.next >= this.events.length;
  }

  play(): void {
    if (this.playing) return;
    if (this.ended) this.seek(0);
    this.playing = true;
    this.anchor();
    this.tick();
  }

  pause(): void {
    if (!this.playing) return;
    this.position = this.now();
    this.playing = false;
    clearTimeout(this.timer);
  }

  toggle(): void {
    if (this.playing) this.pause();
    else this.play();
  }

  setSpeed(speed: ReplaySpeed): void {
    if (this.playing) this.position = this.now();
    this.speed = speed;
    this.anchor();
  }

  /** Redraws the screen as it was `seconds` into the recording. */
  seek(seconds: number): void {
    const target = Math.max(0, Math.min(this.duration, seconds));
    const sink = this.sink();
    sink?.reset();
    sink?.resize(this.size);
    this.next = 0;
    this.writeUntil(target);
    this.position = target;
    this.anchor();
    if (this.playing) this.tick();
  }

  dispose(): void {
    this.playing = false;
    clearTimeout(this.timer);
  }

  private anchor(): void {
    this.anchorAt = performance.now();
    this.anchorPos = this.position;
  }

  private now(): number {
    return Math.min(this.duration, this.anchorPos + ((performance.now() - this.anchorAt) / 1000) * this.speed);
  }

  private tick(): void {
    clearTimeout(this.timer);
    if (!this.playing) return;
    const now = this.now();
    this.writeUntil(now);
    this.position = now;
    if (this.ended) {
      this.position = this.duration;
      this.playing = false;
      return;
    }
    const wait = ((this.events[this.next]!.time - now) / this.speed) * 1000;
    this.timer = setTimeout(() => this.tick(), Math.max(0, Math.min(TICK_MS, wait)));
  }

  /** Writes every event up to `time`, output runs joined into one write. */
  private writeUntil(time: number): void {
    const sink = this.sink();
    let chunk = '';
    while (this.next < this.events.length && this.events[this.next]!.time <= time) {
      const event = this.events[this.next++]!;
      if (event.code === 'o') {
        chunk += event.data;
        continue;
      }
      const size = parseResize(event.data);
      if (chunk) sink?.write(chunk);
      chunk = '';
      if (size) sink?.resize(size);
    }
    if (chunk) sink?.write(chunk);
  }
}
