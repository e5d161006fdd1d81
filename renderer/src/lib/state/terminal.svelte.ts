import type { OpenTerminalRequest, StreamControl, TerminalSession } from '../api/client.js';
import { api } from '../api/index.js';
import { closeTerminal, openTerminal } from '../services/terminals.service.js';
import { FormErrors } from './form-errors.svelte.js';

export type TerminalPhase = 'idle' | 'opening' | 'open' | 'ended';

/** How a session ended, from whichever of the stream's messages arrived. */
export interface TerminalEnd {
  code: number | null;
  signal: number | null;
  /** close_reason: exit, closed, idle, agent-disconnected, ... */
  reason: string | null;
  /** An error message from the stream, or a local explanation. */
  message: string | null;
}

export interface TerminalSize {
  cols: number;
  rows: number;
}

/** What the operator may choose before connecting; empty means the agent's default. */
export interface TerminalOptions {
  shell: string;
  user: string;
}

/** How long Disconnect waits for the orchestrator to close the stream before closing it here. */
const CLOSE_GRACE_MS = 2000;

/**
 * One live terminal: opens a session (POST), attaches its stream WebSocket with the
 * single-use ticket and moves bytes both ways. Binary frames are terminal data; text
 * frames are JSON control messages (resize out; exit, closed, error in). The page puts
 * what arrives into xterm through `output`.
 */
export class TerminalConnection {
  phase = $state<TerminalPhase>('idle');
  session = $state<TerminalSession | null>(null);
  end = $state<TerminalEnd | null>(null);
  /** The orchestrator's answer to a shell or user it refused (body.shell, body.user). */
  readonly errors = new FormErrors();

  private socket: WebSocket | null = null;
  private size: TerminalSize = { cols: 80, rows: 24 };
  private disposed = false;
  private readonly encoder = new TextEncoder();

  constructor(
    readonly nodeId: string,
    private readonly output: (data: Uint8Array) => void,
  ) {}

  get busy(): boolean {
    return this.phase === 'opening';
  }

  /** Opens a new session of the given size (a previous one must have ended). */
  async connect(size: TerminalSize, options: TerminalOptions = { shell: '', user: '' }): Promise<boolean> {
    if (this.phase === 'opening' || this.phase === 'open') return false;
    this.size = size;
    this.phase = 'opening';
    this.end = null;
    this.session = null;
    const request: OpenTerminalRequest = { cols: size.cols, rows: size.rows };
    if (options.shell.trim()) request.shell = options.shell.trim();
    if (options.user.trim()) request.user = options.user.trim();
    const opened = await openTerminal(this.nodeId, request, this.errors);
    if (!opened) {
      this.phase = 'idle';
      return false;
    }
    const { ticket, stream_path: streamPath, ticket_expires_at: _expires, ...session } = opened;
    this.session = session;
    if (this.disposed) {
      void closeTerminal(session, { quiet: true });
      return false;
    }
    return this.attach(api.terminalStreamUrl(streamPath, ticket));
  }

  private attach(url: string): Promise<boolean> {
    return new Promise((resolve) => {
      let socket: WebSocket;
      try {
        socket = new WebSocket(url);
      } catch (err) {
        this.finish({ message: `The terminal stream could not be opened: ${err instanceof Error ? err.message : String(err)}` });
        resolve(false);
        return;
      }
      socket.binaryType = 'arraybuffer';
      this.socket = socket;
      socket.onopen = () => {
        this.phase = 'open';
        // The panel may have changed size while the session was being opened.
        if (this.session && (this.session.cols !== this.size.cols || this.session.rows !== this.size.rows)) this.sendControl({ type: 'resize', ...this.size });
        resolve(true);
      };
      socket.onmessage = (event: MessageEvent<ArrayBuffer | string>) => {
        if (typeof event.data === 'string') this.control(event.data);
        else this.output(new Uint8Array(event.data));
      };
      socket.onclose = (event) => {
        if (this.socket === socket) this.socket = null;
        if (this.phase === 'opening') {
          this.finish({ message: `The terminal stream closed before it opened${event.reason ? `: ${event.reason}` : ` (WebSocket code ${event.code})`}.` });
          resolve(false);
        } else {
          this.finish({ reason: event.reason || null });
        }
      };
    });
  }

  /** Keystrokes and pastes from xterm, sent as binary frames of UTF-8. */
  send(data: string): void {
    if (this.phase === 'open' && this.socket?.readyState === WebSocket.OPEN) this.socket.send(this.encoder.encode(data));
  }

  resize(size: TerminalSize): void {
    if (size.cols === this.size.cols && size.rows === this.size.rows) return;
    this.size = size;
    if (this.phase === 'open') this.sendControl({ type: 'resize', ...size });
  }

  /** Ends the session (DELETE) and waits briefly for the stream to say so. */
  async disconnect(): Promise<void> {
    const session = this.session;
    if (!session || this.phase === 'ended' || this.phase === 'idle') return;
    const closed = await closeTerminal(session);
    const socket = this.socket;
    if (!socket) return;
    if (!closed) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        socket.close(1000, 'closed');
        resolve();
      }, CLOSE_GRACE_MS);
      socket.addEventListener('close', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    this.finish({ reason: 'closed' });
  }

  /** The page is going away: close the stream and the session, without a word. */
  dispose(): void {
    this.disposed = true;
    const session = this.session;
    const socket = this.socket;
    this.socket = null;
    if (session && (this.phase === 'open' || this.phase === 'opening')) void closeTerminal(session, { quiet: true });
    socket?.close(1000, 'page closed');
  }

  private sendControl(message: StreamControl): void {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
  }

  private control(text: string): void {
    let message: StreamControl;
    try {
      message = JSON.parse(text) as StreamControl;
    } catch {
      return;
    }
    if (message.type === 'exit') this.finish({ code: message.code, signal: message.signal, reason: 'exit' });
    else if (message.type === 'closed') this.finish({ reason: message.reason });
    else if (message.type === 'error') this.finish({ message: message.message });
  }

  /** Records how the session ended; later messages add to what the first one said. */
  private finish(part: Partial<TerminalEnd>): void {
    const previous = this.end ?? { code: null, signal: null, reason: null, message: null };
    const merged: TerminalEnd = { ...previous };
    for (const [key, value] of Object.entries(part) as [keyof TerminalEnd, never][]) if (value !== null && value !== undefined && previous[key] === null) merged[key] = value;
    this.end = merged;
    this.phase = 'ended';
  }
}
