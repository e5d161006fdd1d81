// asciicast v2 (https://docs.asciinema.org/manual/asciicast/v2/): the format terminal
// transcripts are recorded in. One JSON header line, then one JSON array per event:
// [time, code, data], time in seconds since the start. Browser-safe (no Node APIs), so
// the web UI's replay player and the orchestrator's tests parse with the same code.

/** "o" output, "i" input, "r" resize ("COLSxROWS"), "m" marker. */
export type AsciicastEventCode = 'o' | 'i' | 'r' | 'm';

export interface AsciicastHeader {
  version: 2;
  width: number;
  height: number;
  /** Unix time (seconds) when the recording started. */
  timestamp?: number;
  duration?: number;
  idle_time_limit?: number;
  command?: string;
  title?: string;
  env?: Record<string, string>;
  /** Any other field the recorder wrote, kept as it was. */
  [field: string]: unknown;
}

export interface AsciicastEvent {
  time: number;
  code: AsciicastEventCode;
  data: string;
}

export interface Asciicast {
  header: AsciicastHeader;
  events: AsciicastEvent[];
}

const CODES: readonly string[] = ['o', 'i', 'r', 'm'];

/** A line that is not valid asciicast v2; `line` counts from 1 (the header). */
export class AsciicastError extends Error {
  constructor(
    readonly line: number,
    readonly reason: string,
  ) {
    super(`line ${line}: ${reason}`);
    this.name = 'AsciicastError';
  }
}

function isPositiveInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0;
}

function parseJson(text: string, line: number): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AsciicastError(line, 'not valid JSON');
  }
}

export function parseAsciicastHeader(text: string, line = 1): AsciicastHeader {
  const value = parseJson(text, line);
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new AsciicastError(line, 'the header must be a JSON object');
  const header = value as Record<string, unknown>;
  if (header.version !== 2) throw new AsciicastError(line, `unsupported version ${JSON.stringify(header.version)} (expected 2)`);
  if (!isPositiveInteger(header.width)) throw new AsciicastError(line, 'width must be a positive integer');
  if (!isPositiveInteger(header.height)) throw new AsciicastError(line, 'height must be a positive integer');
  for (const field of ['timestamp', 'duration', 'idle_time_limit'] as const) {
    const v = header[field];
    if (v !== undefined && (typeof v !== 'number' || !Number.isFinite(v) || v < 0)) throw new AsciicastError(line, `${field} must be a non-negative number`);
  }
  for (const field of ['command', 'title'] as const) {
    if (header[field] !== undefined && typeof header[field] !== 'string') throw new AsciicastError(line, `${field} must be a string`);
  }
  if (header.env !== undefined) {
    const env = header.env;
    if (!env || typeof env !== 'object' || Array.isArray(env) || Object.values(env).some((v) => typeof v !== 'string')) {
      throw new AsciicastError(line, 'env must be an object of strings');
    }
  }
  return header as AsciicastHeader;
}

export interface ParseOptions {
  /**
   * An event earlier than the one before it (a recorder's clock stepped back) is moved
   * to that time instead of refused: for players, which should still show the rest.
   */
  tolerateTimeSkew?: boolean;
}

/** One event line; `after` is the previous event's time (times never go back). */
export function parseAsciicastEvent(text: string, line: number, after = 0, options: ParseOptions = {}): AsciicastEvent {
  const value = parseJson(text, line);
  if (!Array.isArray(value) || value.length !== 3) throw new AsciicastError(line, 'an event must be a [time, code, data] array');
  const [time, code, data] = value as unknown[];
  if (typeof time !== 'number' || !Number.isFinite(time) || time < 0) throw new AsciicastError(line, 'time must be a non-negative number');
  if (time < after && !options.tolerateTimeSkew) throw new AsciicastError(line, `time ${time} is before the previous event (${after})`);
  if (typeof code !== 'string' || !CODES.includes(code)) throw new AsciicastError(line, `unknown event code ${JSON.stringify(code)} (expected o, i, r or m)`);
  if (typeof data !== 'string') throw new AsciicastError(line, 'data must be a string');
  if (code === 'r' && !parseResize(data)) throw new AsciicastError(line, `resize data must be COLSxROWS, not ${JSON.stringify(data)}`);
  return { time: Math.max(time, after), code: code as AsciicastEventCode, data };
}

/** Parses a whole .cast file; empty lines are skipped; the first bad line throws an AsciicastError naming it. */
export function parseAsciicast(text: string, options: ParseOptions = {}): Asciicast {
  const lines = text.split('\n');
  let index = 0;
  while (index < lines.length && lines[index]!.trim() === '') index++;
  if (index >= lines.length) throw new AsciicastError(1, 'the file is empty (no header)');
  const header = parseAsciicastHeader(lines[index]!, index + 1);
  const events: AsciicastEvent[] = [];
  let last = 0;
  for (index++; index < lines.length; index++) {
    const raw = lines[index]!;
    if (raw.trim() === '') continue;
    const event = parseAsciicastEvent(raw, index + 1, last, options);
    last = event.time;
    events.push(event);
  }
  return { header, events };
}

/** "120x40" -> {cols: 120, rows: 40}; undefined when the text is not that shape. */
export function parseResize(data: string): { cols: number; rows: number } | undefined {
  const m = /^(\d{1,5})x(\d{1,5})$/.exec(data);
  if (!m) return undefined;
  const cols = Number(m[1]);
  const rows = Number(m[2]);
  return cols > 0 && rows > 0 ? { cols, rows } : undefined;
}

/**
 * The events with every pause longer than `maxGapS` shortened to it (what players call
 * the idle time limit), so a replay does not sit still through a coffee break.
 */
export function capIdleTime(events: readonly AsciicastEvent[], maxGapS: number): AsciicastEvent[] {
  const out: AsciicastEvent[] = [];
  let shift = 0;
  let previous = 0;
  for (const event of events) {
    const gap = event.time - previous;
    if (gap > maxGapS) shift += gap - maxGapS;
    previous = event.time;
    out.push({ ...event, time: event.time - shift });
  }
  return out;
}

/** One header or event line as a recorder writes it (no trailing newline). */
export function formatAsciicastHeader(header: AsciicastHeader): string {
  return JSON.stringify(header);
}

export function formatAsciicastEvent(event: AsciicastEvent): string {
  return JSON.stringify([Math.round(event.time * 1e6) / 1e6, event.code, event.data]);
}
