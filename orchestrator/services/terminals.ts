import type { FastifyBaseLogger } from 'fastify';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { WebSocket } from 'ws';
import { encodeTerminalFrame, TERMINAL_CHUNK_BYTES, TERMINAL_FRAME, type ServerMessage } from '../../common/protocol.js';
import type { List } from '../../common/schemas/shared.js';
import type { OpenTerminalRequest, OpenTerminalResponse, StreamControl, TerminalListQuery, TerminalSession } from '../../common/schemas/terminals.js';
import { API_PREFIX } from '../../common/version.js';
import type { TerminalMessage } from '../hub/link-messages.js';
import { BadGateway, Conflict, Forbidden, NotFound } from '../http/errors.js';
import type { TerminalRow, TerminalsRepository } from '../repositories/terminals.js';
import { AsciicastWriter } from './asciicast.js';
import type { AgentsService } from './agents.js';
import type { AgentPresence } from './agent-presence.js';
import type { AuditService } from './audit.js';
import { decodeCursor, encodeCursor } from './cursor.js';

export const TICKET_TTL_MS = 30_000;
export const OPEN_TIMEOUT_MS = 10_000;
/** Largest control (text) frame the stream reads; anything longer is ignored. */
const MAX_CONTROL_BYTES = 4096;
/** Input waiting on an agent's link past which the stream stops reading from the browser. */
const INPUT_HIGH_BYTES = 1024 * 1024;
const INPUT_LOW_BYTES = 256 * 1024;
/** Output held for a stream nobody attached yet; the agent's window bounds it anyway. */
const MAX_EARLY_OUTPUT_BYTES = 2 * 1024 * 1024;

/** What the terminal service needs from the agent hub. */
export interface TerminalLink {
  sendTo(nodeId: string, message: ServerMessage): boolean;
  sendBinary(nodeId: string, frame: Uint8Array): boolean;
  bufferedAmount(nodeId: string): number;
}

export interface TerminalOptions {
  dataDir: string;
  maxPerAgent: number;
  idleTimeoutS: number;
  transcriptCapBytes: number;
  recordInput: boolean;
  /** How long a session waits for its stream before closing (default: the ticket's 30 s). */
  attachTimeoutMs?: number;
  openTimeoutMs?: number;
}

export interface Actor {
  operator_id: string;
  role: string;
}

interface Ticket {
  sessionId: string;
  operatorId: string;
  expiresAt: number;
}

interface Live {
  id: string;
  nodeId: string;
  operatorId: string;
  title: string;
  state: 'opening' | 'open';
  cols: number;
  rows: number;
  startedMs: number;
  pid: number | null;
  shell: string | null;
  opened?: { resolve: () => void; reject: (err: Error) => void; timer: NodeJS.Timeout };
  stream?: WebSocket;
  /** Output that came before the stream attached, with its completion callbacks. */
  early: { payload: Buffer; done: () => void }[];
  earlyBytes: number;
  recorder?: AsciicastWriter;
  attachTimer?: NodeJS.Timeout;
  idleTimer?: NodeJS.Timeout;
  lastActivity: number;
  bytesIn: number;
  bytesOut: number;
  unacked: number;
  ackScheduled: boolean;
  closing: boolean;
}

export type CloseReason = 'exit' | 'closed' | 'idle' | 'agent-disconnected' | 'operator-removed' | 'not-attached' | 'stream-closed' | 'open-failed' | 'open-timeout' | 'shutdown';

function hashTicket(ticket: string): string {
  return createHash('sha256').update(ticket).digest('hex');
}

/**
 * Terminal sessions: opens a pty on an agent over its link, relays bytes between the
 * agent and the operator's stream WebSocket with explicit flow control, records the
 * asciicast transcript, and closes sessions on exit, request, idle time, agent loss or
 * operator removal. Only sessions in `live` have a pty; the table keeps the history.
 */
export class TerminalsService {
  private readonly live = new Map<string, Live>();
  private readonly tickets = new Map<string, Ticket>();
  private readonly unknownLogged = new Set<string>();
  private readonly transcriptDir: string;
  private log: FastifyBaseLogger | undefined;
  /** The clock tickets are judged by; tests move it. */
  now: () => number = Date.now;

  constructor(
    private readonly repo: TerminalsRepository,
    private readonly agents: AgentsService,
    private readonly presence: AgentPresence,
    private readonly audit: AuditService,
    private readonly link: TerminalLink,
    readonly options: TerminalOptions,
  ) {
    this.transcriptDir = path.join(options.dataDir, 'transcripts');
  }

  private secretValues: () => string[] = () => [];

  /** Where transcripts get the secret values they record as ******** (read once per session). */
  setSecretValues(values: () => string[]): void {
    this.secretValues = values;
  }

  /** Marks what a previous run left open as closed; call once at start. */
  start(log?: FastifyBaseLogger): number {
    if (log) this.log = log;
    mkdirSync(this.transcriptDir, { recursive: true, mode: 0o700 });
    chmodSync(this.transcriptDir, 0o700);
    return this.repo.closeStale('orchestrator-restart', new Date().toISOString());
  }

  transcriptPath(sessionId: string): string {
    return path.join(this.transcriptDir, `${sessionId}.cast`);
  }

  // ---- API ---------------------------------------------------------------------------

  async open(nodeId: string, actor: Actor, req: OpenTerminalRequest): Promise<OpenTerminalResponse> {
    const agent = this.agents.require(nodeId);
    if (agent.status !== 'accepted') throw new Conflict(`agent ${nodeId} is ${agent.status}; terminals open only on accepted agents`, 'agent-not-accepted');
    if (!this.presence.isOnline(nodeId)) throw new Conflict(`agent ${nodeId} is offline`, 'agent-offline');
    const count = [...this.live.values()].filter((s) => s.nodeId === nodeId).length;
    if (count >= this.options.maxPerAgent) {
      throw new Conflict(`agent ${nodeId} has ${count} open terminal sessions, the most allowed (terminal_max_per_agent); close one first`, 'too-many-sessions');
    }
    const id = randomUUID();
    const startedMs = Date.now();
    this.repo.insert({ session_id: id, node_id: nodeId, operator_id: actor.operator_id, shell: req.shell ?? null, user: req.user ?? null, cols: req.cols, rows: req.rows, started_at: new Date(startedMs).toISOString() });
    const s: Live = {
      id, nodeId, operatorId: actor.operator_id, title: `${nodeId} — ${actor.operator_id}`, state: 'opening', cols: req.cols, rows: req.rows,
      startedMs, pid: null, shell: req.shell ?? null, early: [], earlyBytes: 0, lastActivity: startedMs, bytesIn: 0, bytesOut: 0, unacked: 0, ackScheduled: false, closing: false,
    };
    this.live.set(id, s);
    const opened = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new BadGateway(`agent ${nodeId} did not open the terminal within ${(this.options.openTimeoutMs ?? OPEN_TIMEOUT_MS) / 1000} s`, 'terminal-open-failed')), this.options.openTimeoutMs ?? OPEN_TIMEOUT_MS);
      s.opened = { resolve, reject, timer };
    });
    // Rejected by close() or agentGone() too, possibly before it is awaited below.
    opened.catch(() => {});
    const sent = this.link.sendTo(nodeId, { type: 'term_open', session_id: id, cols: req.cols, rows: req.rows, ...(req.shell ? { shell: req.shell } : {}), ...(req.user ? { user: req.user } : {}) });
    if (!sent) {
      clearTimeout(s.opened!.timer);
      await this.close(id, 'agent-disconnected', { quiet: true });
      throw new Conflict(`agent ${nodeId} is offline`, 'agent-offline');
    }
    try {
      await opened;
    } catch (err) {
      const timedOut = err instanceof BadGateway && /did not open/.test(err.message);
      await this.close(id, timedOut ? 'open-timeout' : 'open-failed', { quiet: true });
      throw err;
    } finally {
      clearTimeout(s.opened!.timer);
      s.opened = undefined;
    }
    const ticket = randomBytes(32).toString('base64url');
    const expiresAt = this.now() + TICKET_TTL_MS;
    this.tickets.set(hashTicket(ticket), { sessionId: id, operatorId: actor.operator_id, expiresAt });
    s.attachTimer = setTimeout(() => {
      if (!s.stream) void this.close(id, 'not-attached');
    }, this.options.attachTimeoutMs ?? TICKET_TTL_MS);
    s.attachTimer.unref();
    this.armIdle(s);
    return { ...this.get(id), ticket, ticket_expires_at: new Date(expiresAt).toISOString(), stream_path: `${API_PREFIX}/terminal/session/${id}/stream` };
  }

  get(sessionId: string): TerminalSession {
    const row = this.repo.get(sessionId);
    if (!row) throw new NotFound(`terminal session ${sessionId} does not exist`, 'session-not-found');
    return this.toSession(row);
  }

  list(q: TerminalListQuery): List<TerminalSession> {
    const limit = q.limit ?? 100;
    let before: { at: string; id: string } | undefined;
    if (q.cursor !== undefined) {
      const at = decodeCursor(q.cursor, 'at');
      const id = decodeCursor(q.cursor, 'id');
      before = { at: String(at), id: String(id) };
    }
    const rows = this.repo.list({ node_id: q.node_id, state: q.state, operator_id: q.operator_id, before, limit: limit + 1 });
    const more = rows.length > limit;
    if (more) rows.pop();
    const last = rows[rows.length - 1];
    return { items: rows.map((r) => this.toSession(r)), next_cursor: more && last ? encodeCursor({ at: last.started_at, id: last.session_id }) : null };
  }

  /** DELETE: closes a live session; a closed one answers the same (idempotent), reported by the return value. */
  async closeByOperator(sessionId: string): Promise<{ session: TerminalSession; wasOpen: boolean }> {
    const session = this.get(sessionId);
    if (!this.live.has(sessionId)) return { session, wasOpen: false };
    await this.close(sessionId, 'closed', { quiet: true });
    return { session: this.get(sessionId), wasOpen: true };
  }

  /** The transcript file of a session, when it has one. */
  transcriptFile(sessionId: string): { file: string; session: TerminalSession } {
    const session = this.get(sessionId);
    const file = this.transcriptPath(sessionId);
    if (!existsSync(file)) throw new NotFound(`terminal session ${sessionId} has no transcript (it never opened)`, 'transcript-not-found');
    return { file, session };
  }

  // ---- tickets and the stream ---------------------------------------------------------

  /**
   * Takes a ticket for the session: single use (gone after one try, right or wrong),
   * 30 s. Returns the operator it was issued to, or undefined.
   */
  redeemTicket(sessionId: string, ticket: string): string | undefined {
    const key = hashTicket(ticket);
    const found = this.tickets.get(key);
    if (!found) return undefined;
    this.tickets.delete(key);
    if (found.sessionId !== sessionId || found.expiresAt <= this.now()) return undefined;
    return found.operatorId;
  }

  /** Checked before the WebSocket upgrade: the session is live, unattached, and the caller's (or the caller is an admin). */
  checkAttach(sessionId: string, actor: Actor): void {
    const s = this.live.get(sessionId);
    if (!s) {
      this.get(sessionId); // 404 when it never existed
      throw new Conflict(`terminal session ${sessionId} is closed`, 'session-closed');
    }
    if (s.operatorId !== actor.operator_id && actor.role !== 'admin') {
      throw new Forbidden(`terminal session ${sessionId} belongs to ${s.operatorId}; only its operator or an admin may attach`, 'session-not-yours');
    }
    if (s.stream || s.state !== 'open') throw new Conflict(`terminal session ${sessionId} already has a stream`, 'stream-attached');
  }

  attach(sessionId: string, socket: WebSocket): void {
    const s = this.live.get(sessionId);
    if (!s || s.stream || s.closing) {
      socket.close(4409, 'session closed or already attached');
      return;
    }
    s.stream = socket;
    clearTimeout(s.attachTimer);
    for (const t of [...this.tickets]) if (t[1].sessionId === sessionId) this.tickets.delete(t[0]);
    socket.on('message', (data, isBinary) => {
      try {
        this.onStreamFrame(s, data as Buffer | Buffer[] | ArrayBuffer, isBinary);
      } catch (err) {
        this.log?.error({ err, sessionId }, 'terminal stream frame handling failed');
      }
    });
    socket.on('close', () => {
      if (this.live.get(sessionId) === s && !s.closing) void this.close(sessionId, 'stream-closed');
    });
    socket.on('error', (err) => this.log?.debug({ err, sessionId }, 'terminal stream error'));
    const early = s.early;
    s.early = [];
    s.earlyBytes = 0;
    for (const e of early) socket.send(e.payload, { binary: true }, () => e.done());
  }

  private onStreamFrame(s: Live, data: Buffer | Buffer[] | ArrayBuffer, isBinary: boolean): void {
    const bytes = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
    if (isBinary) {
      if (!bytes.length) return;
      s.lastActivity = Date.now();
      s.bytesIn += bytes.length;
      if (this.options.recordInput) s.recorder?.input(bytes, s.lastActivity);
      for (let at = 0; at < bytes.length; at += TERMINAL_CHUNK_BYTES) {
        this.link.sendBinary(s.nodeId, encodeTerminalFrame(TERMINAL_FRAME.input, s.id, bytes.subarray(at, at + TERMINAL_CHUNK_BYTES)));
      }
      // A paste flood must not pile up in memory in front of a slow agent link: stop
      // reading the browser's socket (TCP pushes back to it) until the link drains.
      if (this.link.bufferedAmount(s.nodeId) > INPUT_HIGH_BYTES) this.holdInput(s);
      return;
    }
    if (bytes.length > MAX_CONTROL_BYTES) return this.ignored(s, `control frame of ${bytes.length} bytes (at most ${MAX_CONTROL_BYTES})`);
    let m: unknown;
    try {
      m = JSON.parse(bytes.toString('utf8'));
    } catch {
      return this.ignored(s, 'control frame is not JSON');
    }
    if (typeof m !== 'object' || m === null || Array.isArray(m)) return this.ignored(s, 'control frame is not an object');
    const c = m as Record<string, unknown>;
    if (c.type !== 'resize') return this.ignored(s, `unknown control type ${JSON.stringify(c.type)?.slice(0, 40)}`);
    const { cols, rows } = c;
    if (!Number.isInteger(cols) || !Number.isInteger(rows) || (cols as number) < 1 || (cols as number) > 1000 || (rows as number) < 1 || (rows as number) > 500) {
      return this.ignored(s, 'resize needs integer cols 1-1000 and rows 1-500');
    }
    s.cols = cols as number;
    s.rows = rows as number;
    this.link.sendTo(s.nodeId, { type: 'term_resize', session_id: s.id, cols: s.cols, rows: s.rows });
    this.repo.resize(s.id, s.cols, s.rows);
    s.recorder?.resize(s.cols, s.rows, Date.now());
  }

  private holdInput(s: Live): void {
    const stream = s.stream;
    if (!stream || stream.isPaused) return;
    stream.pause();
    const check = () => {
      if (this.live.get(s.id) !== s) return;
      if (this.link.bufferedAmount(s.nodeId) > INPUT_LOW_BYTES) return void setTimeout(check, 10).unref();
      stream.resume();
    };
    setTimeout(check, 10).unref();
  }

  private ignored(s: Live, reason: string): void {
    this.log?.warn({ sessionId: s.id, reason }, 'ignored a frame on a terminal stream');
  }

  // ---- from the agent -----------------------------------------------------------------

  /**
   * Output from the pty: recorded, sent to the stream, and acknowledged to the agent only
   * when both the socket write and the transcript write completed, so a slow browser or
   * disk slows the shell instead of filling memory.
   */
  output(nodeId: string, sessionId: string, payload: Buffer): void {
    const s = this.live.get(sessionId);
    if (!s || s.nodeId !== nodeId) {
      if (!this.unknownLogged.has(sessionId)) {
        if (this.unknownLogged.size > 1000) this.unknownLogged.clear();
        this.unknownLogged.add(sessionId);
        this.log?.info({ nodeId, sessionId }, 'dropped terminal output for a session that is not open on this agent');
      }
      return;
    }
    const n = payload.length;
    s.lastActivity = Date.now();
    s.bytesOut += n;
    let pending = 2;
    const done = () => {
      if (--pending === 0) this.ack(s, n);
    };
    if (s.recorder) s.recorder.output(payload, s.lastActivity, done);
    else done();
    if (s.stream) {
      if (s.stream.readyState === s.stream.OPEN) s.stream.send(payload, { binary: true }, () => done());
      else done();
    } else if (s.earlyBytes + n <= MAX_EARLY_OUTPUT_BYTES) {
      s.early.push({ payload: Buffer.from(payload), done });
      s.earlyBytes += n;
    } else done();
  }

  private ack(s: Live, n: number): void {
    s.unacked += n;
    if (s.ackScheduled) return;
    s.ackScheduled = true;
    // Acks for the frames of one burst go out as one message.
    setImmediate(() => {
      s.ackScheduled = false;
      const bytes = s.unacked;
      s.unacked = 0;
      if (bytes > 0 && this.live.get(s.id) === s) this.link.sendTo(s.nodeId, { type: 'term_ack', session_id: s.id, bytes });
    });
  }

  message(nodeId: string, m: TerminalMessage): void {
    const s = this.live.get(m.session_id);
    if (!s || s.nodeId !== nodeId) {
      this.log?.info({ nodeId, sessionId: m.session_id, type: m.type }, 'terminal message for a session that is not open on this agent');
      return;
    }
    switch (m.type) {
      case 'term_opened': {
        if (s.state !== 'opening') return;
        s.state = 'open';
        s.pid = m.pid;
        s.shell = m.shell;
        this.repo.markOpen(s.id, m.pid, m.shell, m.user);
        this.log?.info({ sessionId: s.id, nodeId, operatorId: s.operatorId, pid: m.pid, shell: m.shell, user: m.user }, 'terminal session opened');
        s.recorder = new AsciicastWriter(
          this.transcriptPath(s.id),
          { width: s.cols, height: s.rows, timestamp: Math.floor(s.startedMs / 1000), shell: m.shell, title: s.title },
          this.options.transcriptCapBytes,
          s.startedMs,
          (err) => this.log?.error({ err, sessionId: s.id }, 'transcript write failed; the session goes on unrecorded'),
          this.secretValues(),
        );
        s.opened?.resolve();
        return;
      }
      case 'term_error':
        if (s.opened) s.opened.reject(new BadGateway(`agent ${nodeId} could not open a terminal: ${m.message}`, 'terminal-open-failed'));
        else void this.close(s.id, 'open-failed');
        return;
      case 'term_exit':
        void this.close(s.id, 'exit', { exitCode: m.exit_code, signal: m.signal });
        return;
    }
  }

  agentGone(nodeId: string): void {
    for (const s of [...this.live.values()]) {
      if (s.nodeId !== nodeId) continue;
      if (s.opened) s.opened.reject(new BadGateway(`agent ${nodeId} went offline while opening the terminal`, 'terminal-open-failed'));
      else void this.close(s.id, 'agent-disconnected');
    }
  }

  operatorRemoved(operatorId: string): void {
    for (const [key, t] of [...this.tickets]) if (t.operatorId === operatorId) this.tickets.delete(key);
    for (const s of [...this.live.values()]) if (s.operatorId === operatorId) void this.close(s.id, 'operator-removed');
  }

  /** Session ids of live sessions and their pty pids (for tests and diagnostics). */
  livePid(sessionId: string): number | null | undefined {
    return this.live.get(sessionId)?.pid ?? this.repo.get(sessionId)?.pid;
  }

  // ---- closing ------------------------------------------------------------------------

  private armIdle(s: Live): void {
    const idleMs = this.options.idleTimeoutS * 1000;
    if (!(idleMs > 0)) return;
    const check = () => {
      if (this.live.get(s.id) !== s) return;
      const left = s.lastActivity + idleMs - Date.now();
      if (left <= 0) void this.close(s.id, 'idle');
      else s.idleTimer = setTimeout(check, left).unref();
    };
    s.idleTimer = setTimeout(check, idleMs).unref();
  }

  /**
   * Ends a session once: kills the pty (unless it exited or its agent is gone), tells the
   * stream why, finishes the transcript and stores the final counters. Closes the
   * orchestrator decided on its own are audited as the system's.
   */
  async close(sessionId: string, reason: CloseReason, extra: { exitCode?: number | null; signal?: number | null; quiet?: boolean } = {}): Promise<void> {
    const s = this.live.get(sessionId);
    if (!s || s.closing) return;
    s.closing = true;
    // An open() still waiting for the agent answers at once instead of at its timeout.
    s.opened?.reject(new BadGateway(`the session was closed (${reason}) before the agent opened it`, 'terminal-open-failed'));
    clearTimeout(s.attachTimer);
    clearTimeout(s.idleTimer);
    for (const [key, t] of [...this.tickets]) if (t.sessionId === sessionId) this.tickets.delete(key);
    if (reason !== 'exit' && reason !== 'agent-disconnected' && reason !== 'open-failed') this.link.sendTo(s.nodeId, { type: 'term_close', session_id: s.id });
    for (const e of s.early) e.done();
    s.early = [];
    const stream = s.stream;
    if (stream && stream.readyState === stream.OPEN) {
      const control: StreamControl = reason === 'exit' ? { type: 'exit', code: extra.exitCode ?? null, signal: extra.signal ?? null } : { type: 'closed', reason };
      stream.send(JSON.stringify(control));
      stream.close(1000, reason);
    }
    this.live.delete(sessionId);
    await s.recorder?.close();
    const closed = this.repo.markClosed(sessionId, {
      ended_at: new Date().toISOString(),
      exit_code: reason === 'exit' ? (extra.exitCode ?? null) : null,
      close_reason: reason,
      bytes_in: s.bytesIn,
      bytes_out: s.bytesOut,
      transcript_bytes: s.recorder?.bytes ?? 0,
      transcript_truncated: s.recorder?.truncated ?? false,
    });
    this.log?.info({ sessionId, nodeId: s.nodeId, operatorId: s.operatorId, reason }, 'terminal session closed');
    if (closed && !extra.quiet) {
      const byOperator = reason === 'stream-closed';
      this.audit.record({
        actor_type: byOperator ? 'operator' : 'system',
        actor: byOperator ? s.operatorId : 'terminals',
        action: 'terminal.close',
        target: sessionId,
        outcome: 'success',
        details: { node_id: s.nodeId, operator_id: s.operatorId, reason, ...(reason === 'exit' ? { exit_code: extra.exitCode ?? null, signal: extra.signal ?? null } : {}) },
      });
    }
  }

  /** Closes every live session (orchestrator shutdown). */
  async stop(): Promise<void> {
    await Promise.all([...this.live.keys()].map((id) => this.close(id, 'shutdown')));
    this.tickets.clear();
  }

  private toSession(row: TerminalRow): TerminalSession {
    const s = this.live.get(row.session_id);
    return {
      session_id: row.session_id,
      node_id: row.node_id,
      operator_id: row.operator_id,
      shell: row.shell,
      user: row.user,
      cols: s?.cols ?? row.cols,
      rows: s?.rows ?? row.rows,
      state: row.state,
      started_at: row.started_at,
      ended_at: row.ended_at,
      exit_code: row.exit_code,
      close_reason: row.close_reason,
      bytes_in: s?.bytesIn ?? row.bytes_in,
      bytes_out: s?.bytesOut ?? row.bytes_out,
      transcript_bytes: s?.recorder?.bytes ?? row.transcript_bytes,
      transcript_truncated: s?.recorder?.truncated ?? row.transcript_truncated === 1,
    };
  }
}
