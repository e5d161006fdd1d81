import { maskText } from '../../common/mask.js';
import { createWriteStream, type WriteStream } from 'node:fs';
import { formatAsciicastEvent, formatAsciicastHeader } from '../../common/asciicast.js';

// asciicast v2 (https://docs.asciinema.org/manual/asciicast/v2/): a JSON header line, then
// one JSON array per event: [seconds since start, "o" | "i" | "r", data]. The line format
// is common/asciicast.ts's, the same module the UI's replay parses with.

export interface AsciicastHeader {
  width: number;
  height: number;
  /** Unix time in seconds. */
  timestamp: number;
  shell: string | null;
  title: string;
}

type EventCode = 'o' | 'i' | 'r';

export function formatCapMarker(capBytes: number): string {
  const mib = capBytes / (1024 * 1024);
  const size = Number.isInteger(mib) ? `${mib} MiB` : `${capBytes} bytes`;
  return `\r\n[corral: transcript truncated at ${size}]\r\n`;
}

/**
 * Writes one session's transcript as it happens. Output and input are decoded with a
 * streaming UTF-8 decoder each, so a character split across two frames stays whole.
 * Past the size cap it writes one marker event and records nothing more. Every write
 * takes a callback that runs once the bytes are on disk (or the writer gave up), so the
 * relay can hold back its acknowledgement and memory stays bounded.
 */
export class AsciicastWriter {
  private readonly out: WriteStream;
  private readonly outDecoder = new TextDecoder('utf-8');
  private readonly inDecoder = new TextDecoder('utf-8');
  private written = 0;
  private stopped = false;
  private failed: Error | undefined;
  /** Per stream, text held back because it may be the start of a secret cut by a frame. */
  private readonly held: Record<'o' | 'i', string> = { o: '', i: '' };
  private readonly holdBack: number;
  truncated = false;

  constructor(
    readonly file: string,
    header: AsciicastHeader,
    private readonly capBytes: number,
    private readonly startedMs: number,
    onError: (err: Error) => void,
    /** Secret values to record as ******** (a shell may print a managed file). */
    private readonly secrets: readonly string[] = [],
  ) {
    this.holdBack = Math.max(0, ...secrets.map((v) => v.length)) - 1;
    this.out = createWriteStream(file, { flags: 'wx', mode: 0o600 });
    this.out.on('error', (err) => {
      this.failed = err;
      this.stopped = true;
      onError(err);
    });
    const line = formatAsciicastHeader({
      version: 2,
      width: header.width,
      height: header.height,
      timestamp: header.timestamp,
      env: { TERM: 'xterm-256color', SHELL: header.shell ?? '' },
      title: header.title,
    });
    this.append(line + '\n', () => {});
  }

  /** Bytes written so far (header and events). */
  get bytes(): number {
    return this.written;
  }

  output(data: Uint8Array, now: number, done: () => void): void {
    this.event(now, 'o', this.masked('o', this.outDecoder.decode(data, { stream: true })), done);
  }

  input(data: Uint8Array, now: number, done: () => void = () => {}): void {
    this.event(now, 'i', this.masked('i', this.inDecoder.decode(data, { stream: true })), done);
  }

  /**
   * Masks what can be masked now and keeps back the last characters, which may begin a
   * secret whose rest is in the next frame; close() writes what is left.
   */
  private masked(code: 'o' | 'i', text: string, final = false): string {
    if (this.holdBack < 0) return text;
    const all = maskText(this.held[code] + text, this.secrets);
    const keep = final ? 0 : Math.min(this.holdBack, all.length);
    this.held[code] = all.slice(all.length - keep);
    return all.slice(0, all.length - keep);
  }

  resize(cols: number, rows: number, now: number): void {
    this.event(now, 'r', `${cols}x${rows}`, () => {});
  }

  private event(now: number, code: EventCode, text: string, done: () => void): void {
    if (this.stopped || text === '') return done();
    const time = Math.max(0, now - this.startedMs) / 1000;
    const line = formatAsciicastEvent({ time, code, data: text }) + '\n';
    const size = Buffer.byteLength(line);
    if (this.written + size > this.capBytes) {
      this.stopped = true;
      this.truncated = true;
      const marker = formatAsciicastEvent({ time, code: 'o', data: formatCapMarker(this.capBytes) }) + '\n';
      return this.append(marker, done);
    }
    this.append(line, done);
  }

  private append(line: string, done: () => void): void {
    if (this.failed) return done();
    this.written += Buffer.byteLength(line);
    this.out.write(line, () => done());
  }

  /** Resolves once everything is on disk (or the file could not be written). */
  close(): Promise<void> {
    for (const code of ['o', 'i'] as const) if (this.held[code]) this.event(Date.now(), code, this.masked(code, '', true), () => {});
    this.stopped = true;
    return new Promise((resolve) => {
      if (this.failed || this.out.closed) return resolve();
      this.out.end(() => resolve());
      this.out.once('error', () => resolve());
    });
  }
}
