// The one connection to the orchestrator's live stream (GET /api/v1/events, server-sent
// events) and the typed event map through which pushed messages reach the state classes.
// EventSource cannot send the Authorization header, so the stream is read with fetch()
// and parsed here.
import type { LiveEventMap, LiveEventType } from '../../../../common/schemas/events.js';
import { ApiError } from '../api/errors.js';
import { api } from '../api/index.js';
import { handleError } from '../utils/handle-error.js';
import { TypedEvents } from '../utils/typed-events.js';

export type { LiveEventMap, LiveEventType };

/** First wait before reconnecting; doubled after each failed try, up to MAX_BACKOFF_MS. */
const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 30_000;
/** The server pings every 25 s; nothing for this long means the connection is dead. */
const SILENCE_MS = 70_000;

/** One server-sent-events message: `event:` and the joined `data:` lines. */
export interface SseMessage {
  event: string;
  data: string;
}

/**
 * Splits a text/event-stream into messages, as the HTML spec's parser does: lines end with
 * \n, \r\n or \r; `data:` lines join with \n; a blank line ends a message; lines starting
 * with ":" are comments (the server's pings). Feed it chunks as they arrive.
 */
export class SseParser {
  private buffer = '';
  private event = '';
  private data: string[] = [];

  push(chunk: string): SseMessage[] {
    this.buffer += chunk;
    const out: SseMessage[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      // A lone \r at the end may be the first half of \r\n: wait for more.
      if (!match || (match[0] === '\r' && match.index === this.buffer.length - 1)) break;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      if (line === '') {
        if (this.data.length) out.push({ event: this.event || 'message', data: this.data.join('\n') });
        this.event = '';
        this.data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'event') this.event = value;
      else if (field === 'data') this.data.push(value);
      // `id` and `retry` are not used: nothing is replayed, and the backoff is ours.
    }
    return out;
  }
}

/**
 * Connects after sign-in, disconnects on sign-out, reconnects with a capped backoff, and
 * hands each message to the handlers registered for its type. Nothing is replayed after a
 * reconnect: each connect starts with a `hello`, on which views re-read what they show.
 */
export class LiveEvents {
  /** The stream is open (a `hello` arrived and it has not ended since). */
  connected = $state(false);
  /** A token to connect with was given and disconnect() has not been called. */
  wanted = $state(false);

  private readonly events = new TypedEvents<LiveEventMap>();
  private token: string | null = null;
  private abort: AbortController | null = null;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private silenceTimer: ReturnType<typeof setTimeout> | undefined;
  private backoff = FIRST_BACKOFF_MS;

  /** Calls `handler` for every `type` message; returns the unsubscribe. */
  on<T extends LiveEventType>(type: T, handler: (data: LiveEventMap[T]) => void): () => void {
    return this.events.on(type, handler);
  }

  /** Opens the stream for this session token (again, if the token changed). */
  connect(token: string): void {
    if (this.wanted && this.token === token) return;
    this.disconnect();
    this.token = token;
    this.wanted = true;
    this.backoff = FIRST_BACKOFF_MS;
    void this.run();
  }

  disconnect(): void {
    this.wanted = false;
    this.token = null;
    clearTimeout(this.retryTimer);
    clearTimeout(this.silenceTimer);
    this.abort?.abort();
    this.abort = null;
    this.connected = false;
  }

  /** Delivers a message as if the server had sent it (used by run(), and by tests). */
  dispatch<T extends LiveEventType>(type: T, data: LiveEventMap[T]): void {
    this.events.emit(type, data);
  }

  private async run(): Promise<void> {
    const token = this.token;
    const abort = new AbortController();
    this.abort = abort;
    const current = () => this.abort === abort && this.wanted && this.token === token;
    try {
      const response = await api.stream('/events', abort.signal);
      if (!response.body) throw new Error('the event stream has no body');
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      const parser = new SseParser();
      this.armSilence(abort);
      for (;;) {
        const { value, done } = await reader.read();
        if (done || !current()) break;
        this.armSilence(abort);
        for (const message of parser.push(value)) this.receive(message);
      }
    } catch (err) {
      if (!current()) return;
      // An ended session signs out (which disconnects); anything else is retried quietly.
      if (err instanceof ApiError && err.status === 401) {
        handleError(err, 'Following live updates');
        return;
      }
    } finally {
      clearTimeout(this.silenceTimer);
      if (this.abort === abort) this.connected = false;
    }
    if (current()) this.scheduleRetry();
  }

  private receive(message: SseMessage): void {
    let data: unknown;
    try {
      data = JSON.parse(message.data);
    } catch {
      return;
    }
    if (message.event === 'hello') {
      this.connected = true;
      this.backoff = FIRST_BACKOFF_MS;
    }
    this.dispatch(message.event as LiveEventType, data as LiveEventMap[LiveEventType]);
  }

  private armSilence(abort: AbortController): void {
    clearTimeout(this.silenceTimer);
    this.silenceTimer = setTimeout(() => abort.abort(), SILENCE_MS);
  }

  private scheduleRetry(): void {
    clearTimeout(this.retryTimer);
    // Some jitter, so many tabs of a restarted orchestrator do not all come back at once.
    const wait = this.backoff * (0.8 + Math.random() * 0.4);
    this.backoff = Math.min(this.backoff * 2, MAX_BACKOFF_MS);
    this.retryTimer = setTimeout(() => {
      if (this.wanted) void this.run();
    }, wait);
  }
}

export const liveEvents = new LiveEvents();

/**
 * Runs `task` once, `delayMs` after the last of a burst of calls (several agents
 * changing at once make one re-read). `cancel` drops a pending run.
 */
export function debounced(task: () => void, delayMs: number): { (): void; cancel(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const run = () => {
    clearTimeout(timer);
    timer = setTimeout(task, delayMs);
  };
  run.cancel = () => clearTimeout(timer);
  return run;
}

export interface FollowLiveOptions {
  /** Subscriptions that call `soon` when a message concerns the view; each returns its unsubscribe. */
  triggers: ((soon: () => void) => () => void)[];
  /** Re-reads the view. */
  refresh: () => void;
  /** Pace of the view's own poll: `liveMs` while the stream is up, `fallbackMs` while it is down. */
  pace?: { set: (ms: number) => void; liveMs: number; fallbackMs: number };
  debounceMs?: number;
}

/**
 * Keeps a view fresh from the live stream: a re-read soon after a message that concerns
 * it (a burst makes one), and a slower poll while the stream is up. Returns the stop.
 */
export function followLive(options: FollowLiveOptions): () => void {
  const soon = debounced(options.refresh, options.debounceMs ?? 300);
  const unsubscribe = options.triggers.map((subscribe) => subscribe(soon));
  const pace = options.pace;
  const stopPace = pace
    ? $effect.root(() => {
        $effect(() => pace.set(liveEvents.connected ? pace.liveMs : pace.fallbackMs));
      })
    : undefined;
  return () => {
    soon.cancel();
    stopPace?.();
    for (const off of unsubscribe) off();
  };
}
