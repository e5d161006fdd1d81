// The agent's terminals: opens, feeds, resizes and closes ptys on the orchestrator's
// term_* messages and binary input frames, and reports back with term_opened, term_error
// and term_exit. It never throws at the link: a bad request is answered or logged.
import pty from 'node-pty';
import { existsSync } from 'node:fs';
import {
  TERMINAL_FRAME,
  type TermErrorMessage,
  type TermExitMessage,
  type TermOpenedMessage,
  type TermOpenMessage,
  type TermAckMessage,
  type TermCloseMessage,
  type TermResizeMessage,
} from '../../common/protocol.js';
import type { Logger } from '../logger.js';
import { resolveAccount, shellEnvironment, SYSTEM_FILES, TerminalRefused, type AccountFiles } from './accounts.js';
import { KILL_GRACE_MS, TerminalSession } from './session.js';

export const MAX_TERMINALS = 8;
export const MAX_COLS = 1000;
export const MAX_ROWS = 500;
/** Past this much in the WebSocket's send buffer every pty is held; below the low mark they read again. */
export const SOCKET_HIGH_BYTES = 4 * 1024 * 1024;
export const SOCKET_LOW_BYTES = 1024 * 1024;

export type TerminalReply = TermOpenedMessage | TermErrorMessage | TermExitMessage;
export type TerminalRequest = TermOpenMessage | TermResizeMessage | TermCloseMessage | TermAckMessage;

/** What the manager needs of the link. */
export interface TerminalLink {
  /** False while the link cannot carry terminal traffic (not accepted, not open). */
  readonly canSend: boolean;
  /** Bytes queued in the WebSocket and not yet written to the socket. */
  readonly bufferedAmount: number;
  sendFrame(frame: Uint8Array): boolean;
  sendReply(message: TerminalReply): void;
}

export interface TerminalOptions {
  /** Default: the agent runs as root (uid 0). Tests pretend otherwise. */
  isRoot?: boolean;
  files?: AccountFiles;
  /** Shell for terminals of the agent's own user that ask for none (default: its login shell). */
  defaultShell?: string;
  maxSessions?: number;
  killGraceMs?: number;
}

/** process.initgroups exists on POSIX (Node docs) but @types/node 20 leaves it out. */
type ProcessWithInitgroups = NodeJS.Process & { initgroups?: (user: string, extraGroup: number) => void };

function validSize(cols: number, rows: number): boolean {
  return Number.isInteger(cols) && Number.isInteger(rows) && cols >= 1 && cols <= MAX_COLS && rows >= 1 && rows <= MAX_ROWS;
}

export class TerminalManager {
  private readonly sessions = new Map<string, TerminalSession>();
  /** Sessions being killed after a link drop: no longer reachable, still awaited by stop(). */
  private readonly dying = new Set<Promise<void>>();
  private readonly log: Logger;
  private readonly isRoot: boolean;
  private readonly files: AccountFiles;
  private readonly maxSessions: number;
  private readonly killGraceMs: number;
  private readonly defaultShell: string | undefined;
  private drainTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly link: TerminalLink,
    log: Logger,
    options: TerminalOptions = {},
  ) {
    this.log = log.child({ component: 'terminal' });
    this.isRoot = options.isRoot ?? process.getuid?.() === 0;
    this.files = options.files ?? SYSTEM_FILES;
    this.maxSessions = options.maxSessions ?? MAX_TERMINALS;
    this.killGraceMs = options.killGraceMs ?? KILL_GRACE_MS;
    this.defaultShell = options.defaultShell;
  }

  get size(): number {
    return this.sessions.size;
  }

  /** The live session with this id (tests read its pid and counters). */
  session(id: string): TerminalSession | undefined {
    return this.sessions.get(id);
  }

  handle(message: TerminalRequest): void {
    try {
      switch (message.type) {
        case 'term_open':
          return this.open(message);
        case 'term_resize':
          return this.resize(message);
        case 'term_close':
          return this.close(message.session_id);
        case 'term_ack':
          return this.known(message.session_id, 'term_ack')?.ack(message.bytes);
      }
    } catch (err) {
      this.log.error({ err, type: message.type, session_id: message.session_id }, 'failed to handle a terminal message');
    }
  }

  /** A binary frame from the orchestrator: input for a session. */
  input(kind: number, sessionId: string, payload: Uint8Array): void {
    if (kind !== TERMINAL_FRAME.input) return void this.log.warn({ kind, session_id: sessionId }, 'ignoring a terminal frame that is not input');
    try {
      this.known(sessionId, 'input')?.write(payload);
    } catch (err) {
      this.log.error({ err, session_id: sessionId }, 'cannot write to the terminal');
    }
  }

  /**
   * Kills every shell (link lost, agent rejected, agent stopping). Nothing is reported: the
   * orchestrator closes its side of each session itself. Resolves once all have exited.
   */
  closeAll(reason: string): Promise<void> {
    if (this.sessions.size) this.log.info({ sessions: this.sessions.size, reason }, 'closing every terminal');
    for (const s of this.sessions.values()) {
      const done = s.close(this.killGraceMs);
      this.dying.add(done);
      void done.finally(() => this.dying.delete(done));
    }
    this.sessions.clear();
    this.stopDrainWatch();
    return Promise.all([...this.dying]).then(() => undefined);
  }

  private known(id: string, what: string): TerminalSession | undefined {
    const s = this.sessions.get(id);
    if (!s) this.log.warn({ session_id: id, what }, 'ignoring a terminal message for an unknown session');
    return s;
  }

  private refuse(id: string, message: string): void {
    this.log.warn({ session_id: id, reason: message }, 'refused to open a terminal');
    this.link.sendReply({ type: 'term_error', session_id: id, message });
  }

  private open(m: TermOpenMessage): void {
    const id = m.session_id;
    if (this.sessions.has(id)) return void this.log.warn({ session_id: id }, 'ignoring term_open for a session that is already open');
    if (!validSize(m.cols, m.rows)) return this.refuse(id, `a terminal of ${m.cols}x${m.rows} is out of range (1-${MAX_COLS} columns, 1-${MAX_ROWS} rows)`);
    if (this.sessions.size >= this.maxSessions) return this.refuse(id, `this agent already has ${this.sessions.size} terminals open (the limit is ${this.maxSessions})`);
    let resolved;
    try {
      resolved = resolveAccount({ user: m.user, shell: m.shell }, this.isRoot, this.files, this.defaultShell);
    } catch (err) {
      if (err instanceof TerminalRefused) return this.refuse(id, err.message);
      throw err;
    }
    const { account, shell, switchUser } = resolved;
    const cwd = account.home && existsSync(account.home) ? account.home : '/';
    let proc: pty.IPty;
    const groups = switchUser ? process.getgroups?.() : undefined;
    try {
      // node-pty sets uid and gid but not the supplementary groups, so the child would keep
      // root's. The fork happens inside spawn(), synchronously: give the agent the user's
      // groups for that moment, and its own back at once.
      if (switchUser) (process as ProcessWithInitgroups).initgroups?.(account.name, account.gid);
      proc = pty.spawn(shell, ['-l'], {
        name: 'xterm-256color',
        cols: m.cols,
        rows: m.rows,
        cwd,
        env: shellEnvironment(account, shell),
        encoding: null,
        ...(switchUser ? { uid: account.uid, gid: account.gid } : {}),
      });
    } catch (err) {
      return this.refuse(id, `cannot start ${shell}: ${(err as Error).message}`);
    } finally {
      if (groups) process.setgroups?.(groups);
    }
    const session = new TerminalSession(
      id,
      proc,
      {
        sendFrame: (frame) => this.sendFrame(frame),
        socketFull: () => this.drainTimer !== null || this.link.bufferedAmount > SOCKET_HIGH_BYTES,
      },
      this.log,
      (exit) => this.onExit(session, exit.exitCode, exit.signal),
    );
    this.sessions.set(id, session);
    this.log.info({ session_id: id, pid: proc.pid, shell, user: account.name, cols: m.cols, rows: m.rows }, 'terminal opened');
    this.link.sendReply({ type: 'term_opened', session_id: id, pid: proc.pid, shell, user: account.name });
  }

  private resize(m: TermResizeMessage): void {
    const s = this.known(m.session_id, 'term_resize');
    if (!s) return;
    if (!validSize(m.cols, m.rows)) return void this.log.warn({ session_id: m.session_id, cols: m.cols, rows: m.rows }, 'ignoring a terminal size out of range');
    s.resize(m.cols, m.rows);
  }

  private close(id: string): void {
    const s = this.known(id, 'term_close');
    if (!s) return;
    this.log.info({ session_id: id, pid: s.pid }, 'closing a terminal');
    // It stays listed until it exits, so term_exit still goes out.
    void s.close(this.killGraceMs);
  }

  private onExit(session: TerminalSession, exitCode: number | null, signal: number | null): void {
    if (this.sessions.get(session.id) !== session) return; // dropped with the link: nobody to tell
    this.sessions.delete(session.id);
    this.log.info({ session_id: session.id, exit_code: exitCode, signal, output_bytes: session.sent }, 'terminal exited');
    this.link.sendReply({ type: 'term_exit', session_id: session.id, exit_code: exitCode, signal });
    if (!this.sessions.size) this.stopDrainWatch();
  }

  private sendFrame(frame: Uint8Array): boolean {
    if (!this.link.canSend) return false;
    const ok = this.link.sendFrame(frame);
    if (this.link.bufferedAmount > SOCKET_HIGH_BYTES) this.startDrainWatch();
    return ok;
  }

  /** While the socket is backed up, polls its buffer and lets the ptys read again once it drains. */
  private startDrainWatch(): void {
    if (this.drainTimer) return;
    this.log.debug({ buffered: this.link.bufferedAmount }, 'the link is backed up; holding terminal output');
    this.drainTimer = setInterval(() => {
      if (this.link.bufferedAmount > SOCKET_LOW_BYTES) return;
      this.stopDrainWatch();
      for (const s of this.sessions.values()) s.updatePause();
    }, 20);
  }

  private stopDrainWatch(): void {
    if (this.drainTimer) clearInterval(this.drainTimer);
    this.drainTimer = null;
  }
}

