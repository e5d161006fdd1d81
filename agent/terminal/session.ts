// One terminal: a pty and the flow control of its output (DESIGN.md "Terminals", STYLE.md
// "The terminal path"). Reads that arrive in one turn of the event loop are batched (after
// Hyper) so a flood of tiny reads leaves as few frames, cut into chunks of at most TERMINAL_CHUNK_BYTES on character
// boundaries, and counted until the orchestrator acknowledges it; past TERMINAL_WINDOW_BYTES
// unacknowledged the pty is paused (Tabby), so a slow reader slows the shell.
import type { IPty } from 'node-pty';
import { encodeTerminalFrame, TERMINAL_CHUNK_BYTES, TERMINAL_FRAME, TERMINAL_WINDOW_BYTES } from '../../common/protocol.js';
import type { Logger } from '../logger.js';
import { completeUtf8Length, splitUtf8 } from './utf8.js';

/**
 * How long an unfinished UTF-8 character at the end of a read waits for the rest of it
 * before it is sent alone. Generous: on a busy machine the writer can be descheduled for
 * several milliseconds mid-stream, and only output that really ends mid-character waits.
 */
export const UNFINISHED_CHAR_WAIT_MS = 50;
/** Grace between SIGHUP and SIGKILL when a terminal is closed. */
export const KILL_GRACE_MS = 2000;

export interface SessionOutput {
  /** Sends one binary frame; false when the link cannot take it (the bytes are dropped). */
  sendFrame(frame: Uint8Array): boolean;
  /** True while the WebSocket's own send buffer is too full: every session holds its pty. */
  socketFull(): boolean;
}

export interface SessionExit {
  exitCode: number | null;
  signal: number | null;
}

export class TerminalSession {
  /** Output bytes sent and not yet acknowledged. */
  unacked = 0;
  /** Output bytes sent in all. */
  sent = 0;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private batchTimer: NodeJS.Timeout | null = null;
  private immediate: NodeJS.Immediate | null = null;
  private killTimer: NodeJS.Timeout | null = null;
  private paused = false;
  private closing = false;
  private exited = false;
  private readonly exitWaiters: (() => void)[] = [];

  constructor(
    readonly id: string,
    private readonly pty: IPty,
    private readonly output: SessionOutput,
    private readonly log: Logger,
    onExit: (exit: SessionExit) => void,
  ) {
    // With encoding null, node-pty hands over Buffers (its typings say string).
    pty.onData((data) => this.onData(data as unknown as Buffer | string));
    // node-pty rethrows a read error other than EIO unless someone else listens: log it instead.
    // (EIO is how every pty ends, EAGAIN a retry: neither is worth a line.)
    (pty as unknown as { on(event: 'error', listener: (err: NodeJS.ErrnoException) => void): void }).on('error', (err) => {
      if (err.code !== 'EIO' && err.code !== 'EAGAIN') log.warn({ session_id: id, err: err.message }, 'terminal read error');
    });
    pty.onExit(({ exitCode, signal }) => {
      this.exited = true;
      if (this.killTimer) clearTimeout(this.killTimer);
      this.cancelBatch();
      if (!this.closing) this.flush(true);
      this.exitWaiters.splice(0).forEach((w) => w());
      // A shell killed by a signal has no exit code; node-pty reports signal 0 for none.
      onExit(signal ? { exitCode: null, signal } : { exitCode, signal: null });
    });
  }

  get pid(): number {
    return this.pty.pid;
  }

  get alive(): boolean {
    return !this.exited;
  }

  get isPaused(): boolean {
    return this.paused;
  }

  write(data: Uint8Array): void {
    if (this.closing || this.exited) return;
    this.pty.write(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  }

  resize(cols: number, rows: number): void {
    if (this.closing || this.exited) return;
    this.pty.resize(cols, rows);
  }

  ack(bytes: number): void {
    this.unacked = Math.max(0, this.unacked - bytes);
    this.updatePause();
  }

  /** Re-checks whether the pty may be read (after an ack, or when the socket drains). */
  updatePause(): void {
    if (this.closing || this.exited) return;
    const hold = this.output.socketFull() || (this.paused ? this.unacked >= TERMINAL_WINDOW_BYTES / 2 : this.unacked > TERMINAL_WINDOW_BYTES);
    if (hold === this.paused) return;
    this.paused = hold;
    if (hold) this.pty.pause();
    else this.pty.resume();
    this.log.trace({ session_id: this.id, paused: hold, unacked: this.unacked }, hold ? 'terminal output paused' : 'terminal output resumed');
  }

  /**
   * Ends the shell: SIGHUP, then SIGKILL to its process group after the grace period if it
   * is still there. Output from then on is dropped (the reader is gone). Resolves on exit.
   */
  close(graceMs = KILL_GRACE_MS): Promise<void> {
    if (this.exited) return Promise.resolve();
    const done = new Promise<void>((resolve) => this.exitWaiters.push(resolve));
    if (this.closing) return done;
    this.closing = true;
    this.cancelBatch();
    this.pending = [];
    this.pendingBytes = 0;
    // Read on, so node-pty sees the pty close and reports the exit.
    if (this.paused) this.pty.resume();
    this.paused = false;
    // A hangup, as when a terminal goes away: to the shell and to its process group, so a
    // command running under a shell that is still reading its profile gets it too.
    this.signal('SIGHUP', true);
    this.killTimer = setTimeout(() => {
      if (this.exited) return;
      this.log.warn({ session_id: this.id, pid: this.pid }, 'the shell outlived SIGHUP; killing its process group');
      this.signal('SIGKILL', true);
    }, graceMs);
    return done;
  }

  private signal(signal: NodeJS.Signals, group = false): void {
    // The shell leads its own session and process group (forkpty), so -pid is its group.
    for (const target of group ? [-this.pid, this.pid] : [this.pid]) {
      try {
        process.kill(target, signal);
      } catch {
        // already gone
      }
    }
  }

  private onData(data: Buffer | string): void {
    if (this.closing) return;
    const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    this.pending.push(buf);
    this.pendingBytes += buf.length;
    if (this.pendingBytes >= TERMINAL_CHUNK_BYTES) this.flush(false);
    else this.schedule();
  }

  /**
   * Reads that arrive in the same turn of the event loop leave together, so a flood of
   * tiny reads makes few frames, while a lone keystroke's echo is not held back by a timer.
   */
  private schedule(): void {
    this.immediate ??= setImmediate(() => {
      this.immediate = null;
      this.flush(false);
    });
  }

  private cancelBatch(): void {
    if (this.batchTimer) clearTimeout(this.batchTimer);
    if (this.immediate) clearImmediate(this.immediate);
    this.batchTimer = null;
    this.immediate = null;
  }

  /** Sends what is pending; all of it at the end, else up to the last complete character. */
  private flush(final: boolean): void {
    this.cancelBatch();
    if (this.pendingBytes === 0) return;
    const all = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingBytes);
    const cut = final ? all.length : completeUtf8Length(all);
    const rest = all.subarray(cut);
    this.pending = rest.length ? [Buffer.from(rest)] : [];
    this.pendingBytes = rest.length;
    // An unfinished character at the end goes with the next read, or alone a little later.
    if (rest.length) this.batchTimer = setTimeout(() => this.flush(true), UNFINISHED_CHAR_WAIT_MS);
    if (cut === 0) return;
    for (const chunk of splitUtf8(all.subarray(0, cut), TERMINAL_CHUNK_BYTES)) {
      if (!this.output.sendFrame(encodeTerminalFrame(TERMINAL_FRAME.output, this.id, chunk))) break;
      this.unacked += chunk.length;
      this.sent += chunk.length;
    }
    this.updatePause();
  }
}
