// The agent's end of the link (DESIGN.md "Agents"): dial /agent/v1, pin the certificate,
// answer the orchestrator's hello with a signed auth, then keep the link alive with
// pings, and come back with backoff whenever it drops. What the link may carry depends
// on the approval status: pending and rejected agents send nothing but pings, so
// sendData() refuses unless the orchestrator has said "accepted". Terminal traffic (term_*
// messages and binary frames) flows only while accepted too; it is handed to onTerminal*.
import type { ConnectionOptions } from 'node:tls';
import WebSocket, { type RawData } from 'ws';
import { FingerprintMismatch, pinnedTlsOptions } from '../../common/node/pinned-tls.js';
import {
  agentAuthMessage,
  decodeTerminalFrame,
  LINK_CLOSE,
  MAX_FRAME_BYTES,
  PROTOCOL_VERSION,
  protocolMajor,
  type AgentMessage,
  type ApprovalStatus,
  type AttributesMessage,
  type HelloMessage,
  type MetricsMessage,
  type ServerMessage,
  type StateDoneMessage,
  type StateResultMessage,
  type StateRunMessage,
  type TermAckMessage,
  type TermCloseMessage,
  type TermErrorMessage,
  type TermExitMessage,
  type TermOpenedMessage,
  type TermOpenMessage,
  type TermResizeMessage,
} from '../../common/protocol.js';
import { Backoff } from '../backoff.js';
import type { Identity } from '../identity.js';
import type { Logger } from '../logger.js';
import { encodedSize } from './frames.js';
import { excerpt, parseServerMessage } from './messages.js';
import { linkTarget, type LinkTarget } from './url.js';

/**
 * connecting: dialling (pinning, TCP, TLS, upgrade); handshake: open, hello/auth/welcome
 * under way; pending/accepted/rejected: welcomed with that status; waiting: backing off
 * before the next attempt; refused: will not dial (https without a fingerprint); stopped.
 */
export type LinkState = 'connecting' | 'handshake' | ApprovalStatus | 'waiting' | 'refused' | 'stopped';

export interface LinkOptions {
  orchestrator: string;
  fingerprint: string | null;
  nodeId: string;
  hostname: string;
  agentVersion: string;
  identity: Identity;
  log: Logger;
  backoff?: Backoff;
  /** Time allowed from dialling to the welcome (default 15 s). */
  handshakeTimeoutMs?: number;
  /** A link up this long resets the backoff (default 30 s). */
  stableAfterMs?: number;
  /** Called each time the status becomes accepted: the agent then sends attributes and metrics. */
  onAccepted?: () => void;
  onStateChange?: (state: LinkState) => void;
  /** A term_* request from the orchestrator; only delivered while accepted. */
  onTerminalMessage?: (message: TermOpenMessage | TermResizeMessage | TermCloseMessage | TermAckMessage) => void;
  /** A well-formed binary terminal frame; only delivered while accepted. */
  onTerminalFrame?: (kind: number, sessionId: string, payload: Uint8Array) => void;
  /** A desired-state run (apply, plan, drift check); only while accepted. */
  onStateRun?: (message: StateRunMessage) => void;
}

/** What the agent sends once accepted. */
export type DataMessage = AttributesMessage | MetricsMessage | TermOpenedMessage | TermErrorMessage | TermExitMessage | StateResultMessage | StateDoneMessage;

export class LinkNotReady extends Error {}

/** Close codes whose cause a quick retry cannot fix: the next attempt waits the backoff cap. */
const SLOW_RETRY_CODES = new Set<number>([LINK_CLOSE.protocolMismatch, LINK_CLOSE.authFailed, LINK_CLOSE.keyMismatch]);

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data as ArrayBuffer).toString('utf8');
}

function rawLength(data: RawData): number {
  return Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : (data as Buffer | ArrayBuffer).byteLength;
}

export class AgentLink {
  readonly target: LinkTarget;
  private readonly backoff: Backoff;
  private readonly log: Logger;
  private readonly handshakeTimeoutMs: number;
  private readonly stableAfterMs: number;
  private current: LinkState = 'waiting';
  private ws: WebSocket | null = null;
  /** Bumped by every dial and by stop(), so a late callback of an older attempt does nothing. */
  private generation = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  private handshakeTimer: NodeJS.Timeout | null = null;
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private heartbeatMs = 10_000;
  private lastReceived = 0;
  private authSent = false;
  private welcomedAt = 0;
  private slowRetry = false;
  private stopped = false;
  private lastError: string | null = null;
  private closed: (() => void) | null = null;
  private status: ApprovalStatus | null = null;
  /** Successful welcomes since start; tests and the handle read it. */
  connections = 0;

  constructor(private readonly options: LinkOptions) {
    this.target = linkTarget(options.orchestrator);
    this.backoff = options.backoff ?? new Backoff();
    this.log = options.log.child({ component: 'link', orchestrator: options.orchestrator });
    this.handshakeTimeoutMs = options.handshakeTimeoutMs ?? 15_000;
    this.stableAfterMs = options.stableAfterMs ?? 30_000;
  }

  get state(): LinkState {
    return this.current;
  }

  /** The status the orchestrator last gave on the live link; null while not linked. */
  get approvalStatus(): ApprovalStatus | null {
    return this.status;
  }

  /** True while data (attributes, metrics) may go out: linked and accepted. */
  get canSendData(): boolean {
    return this.current === 'accepted' && this.ws?.readyState === WebSocket.OPEN;
  }

  start(): void {
    if (this.target.secure && !this.options.fingerprint) {
      // Without a pin, the agent would have to trust whatever certificate answers; it will not.
      this.log.error(`${this.options.orchestrator} is https but no certificate fingerprint is configured; refusing to connect (set --fingerprint)`);
      this.setState('refused');
      return;
    }
    void this.connect();
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.generation++;
    this.clearTimers();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const ws = this.ws;
    if (ws && ws.readyState !== WebSocket.CLOSED) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => (ws.terminate(), resolve()), 2000);
        this.closed = () => (clearTimeout(timer), resolve());
        if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
        else ws.close(1001, 'agent stopping');
      });
    }
    this.ws = null;
    this.status = null;
    this.setState('stopped');
  }

  /** Sends attributes, metrics or a terminal reply; refused (LinkNotReady) unless the agent is accepted. */
  sendData(message: DataMessage): Promise<void> {
    if (!this.canSendData || !this.ws) return Promise.reject(new LinkNotReady(`the link is ${this.current}, not accepted`));
    return this.send(this.ws, message);
  }

  /** Sends a binary terminal frame; false (nothing sent) unless the agent is accepted. */
  sendBinary(frame: Uint8Array): boolean {
    if (!this.canSendData || !this.ws) return false;
    this.ws.send(frame, { binary: true }, (err) => {
      if (err) this.log.debug({ err: err.message }, 'a terminal frame was not sent');
    });
    return true;
  }

  /** Bytes queued in the WebSocket, not yet on the socket (0 while not linked). */
  get bufferedAmount(): number {
    return this.ws?.bufferedAmount ?? 0;
  }

  private send(ws: WebSocket, message: AgentMessage): Promise<void> {
    const size = encodedSize(message);
    if (size > MAX_FRAME_BYTES) return Promise.reject(new Error(`a ${message.type} message of ${size} bytes is over the ${MAX_FRAME_BYTES}-byte frame limit`));
    return new Promise((resolve, reject) => {
      if (ws.readyState !== WebSocket.OPEN) return reject(new LinkNotReady('the link is not open'));
      // The callback fires once the frame is handed to the socket, or with the error that stopped it.
      ws.send(JSON.stringify(message), (err) => (err ? reject(err) : resolve()));
    });
  }

  private setState(state: LinkState): void {
    if (state === this.current) return;
    this.current = state;
    this.options.onStateChange?.(state);
  }

  private clearTimers(): void {
    if (this.handshakeTimer) clearTimeout(this.handshakeTimer);
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.handshakeTimer = null;
    this.heartbeatTimer = null;
  }

  private async connect(): Promise<void> {
    const generation = ++this.generation;
    this.retryTimer = null;
    this.authSent = false;
    this.welcomedAt = 0;
    this.status = null;
    this.setState('connecting');
    let tlsOptions: ConnectionOptions = {};
    if (this.target.secure) {
      // Pin first: the certificate is checked on a connection that carries no data, so
      // not even the auth message reaches a server with the wrong certificate.
      try {
        tlsOptions = await pinnedTlsOptions(this.target.host, this.target.port, this.options.fingerprint!);
      } catch (err) {
        if (generation !== this.generation) return;
        if (err instanceof FingerprintMismatch) {
          this.log.error({ expected: err.expected, actual: err.actual }, err.message);
          this.slowRetry = true;
        } else {
          this.log.warn({ err: (err as Error).message }, 'cannot reach the orchestrator');
        }
        return this.scheduleReconnect();
      }
      if (generation !== this.generation) return;
    }
    let ws: WebSocket;
    try {
      ws = new WebSocket(this.target.url, {
        ...tlsOptions,
        maxPayload: MAX_FRAME_BYTES,
        handshakeTimeout: this.handshakeTimeoutMs,
        headers: { 'user-agent': `corral-agent/${this.options.agentVersion}` },
      });
    } catch (err) {
      this.log.error({ err: (err as Error).message, url: this.target.url }, 'cannot open the link');
      return this.scheduleReconnect();
    }
    this.ws = ws;
    ws.on('open', () => this.onOpen(ws));
    ws.on('message', (data, isBinary) => this.onMessage(ws, data, isBinary));
    ws.on('ping', () => this.touch(ws));
    ws.on('pong', () => this.touch(ws));
    ws.on('error', (err) => {
      // 'close' always follows and logs the error with it: one line per failed attempt, not two.
      if (ws !== this.ws) return;
      this.lastError = err.message;
      this.log.debug({ err: err.message }, 'link error');
    });
    ws.on('close', (code, reason) => this.onClose(ws, code, reason.toString('utf8')));
  }

  private touch(ws: WebSocket): void {
    if (ws === this.ws) this.lastReceived = Date.now();
  }

  private onOpen(ws: WebSocket): void {
    if (ws !== this.ws) return;
    this.touch(ws);
    this.setState('handshake');
    this.handshakeTimer = setTimeout(() => {
      this.log.warn({ timeout_ms: this.handshakeTimeoutMs }, 'the orchestrator did not complete the handshake in time; reconnecting');
      ws.terminate();
    }, this.handshakeTimeoutMs);
  }

  private onMessage(ws: WebSocket, data: RawData, isBinary: boolean): void {
    if (ws !== this.ws) return;
    this.touch(ws);
    if (isBinary) return this.onBinary(data);
    const text = rawText(data);
    const parsed = parseServerMessage(text);
    if (!parsed.ok) {
      this.log.warn({ reason: parsed.reason, frame: excerpt(text) }, 'ignoring a bad message from the orchestrator');
      return;
    }
    try {
      this.handle(ws, parsed.message);
    } catch (err) {
      // A bug in a handler must cost one message, not the agent.
      this.log.error({ err, type: parsed.message.type }, 'failed to handle a message from the orchestrator');
    }
  }

  private onBinary(data: RawData): void {
    if (this.current !== 'accepted') {
      this.log.warn({ bytes: rawLength(data), reason: `the agent is ${this.current}, not accepted` }, 'ignoring a binary frame from the orchestrator');
      return;
    }
    const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
    const frame = decodeTerminalFrame(buf);
    if (!frame) return void this.log.warn({ bytes: buf.length, reason: 'not a terminal frame' }, 'ignoring a binary frame from the orchestrator');
    try {
      this.options.onTerminalFrame?.(frame.kind, frame.sessionId, frame.payload);
    } catch (err) {
      this.log.error({ err, session_id: frame.sessionId }, 'failed to handle a terminal frame');
    }
  }

  private handle(ws: WebSocket, message: ServerMessage): void {
    switch (message.type) {
      case 'term_open':
      case 'term_resize':
      case 'term_close':
      case 'term_ack':
        if (this.current !== 'accepted') return void this.log.warn({ type: message.type, state: this.current }, 'ignoring a terminal message: the agent is not accepted');
        return this.options.onTerminalMessage?.(message);
      case 'state_run':
        if (this.current !== 'accepted') return void this.log.warn({ run_id: message.run_id, state: this.current }, 'ignoring a state run: the agent is not accepted');
        return this.options.onStateRun?.(message);
      case 'hello':
        return this.onHello(ws, message);
      case 'welcome':
        if (!this.authSent || this.welcomedAt) return void this.log.warn('ignoring an unexpected welcome');
        this.clearTimers();
        this.welcomedAt = Date.now();
        this.connections++;
        // Clamped so a confused server can neither make the agent ping in a tight loop nor never.
        this.heartbeatMs = Math.min(Math.max(message.heartbeat_s, 0.25), 3600) * 1000;
        this.startHeartbeat(ws);
        this.log.info({ status: message.status, heartbeat_s: message.heartbeat_s }, 'linked to the orchestrator');
        return this.setStatus(message.status);
      case 'status':
        if (!this.welcomedAt) return void this.log.warn({ status: message.status }, 'ignoring a status before the welcome');
        return this.setStatus(message.status);
      case 'pong':
        return void this.log.trace({ rtt_ms: Date.now() - message.ts }, 'pong');
      case 'error':
        return void this.log.warn({ code: message.code, message: message.message }, 'the orchestrator reported an error');
    }
  }

  private onHello(ws: WebSocket, hello: HelloMessage): void {
    if (this.authSent) return void this.log.warn('ignoring a second hello');
    if (protocolMajor(hello.protocol_version) !== protocolMajor(PROTOCOL_VERSION)) {
      this.log.error(
        { orchestrator_protocol: hello.protocol_version, agent_protocol: PROTOCOL_VERSION },
        `the orchestrator speaks agent protocol ${hello.protocol_version} and this agent speaks ${PROTOCOL_VERSION}; ` +
          `the major versions differ, so the link is refused (upgrade the older side; retrying every ${Math.round(this.backoff.capMs / 1000)} s)`,
      );
      this.slowRetry = true;
      ws.close(LINK_CLOSE.protocolMismatch, `agent protocol ${PROTOCOL_VERSION}`);
      return;
    }
    const { nodeId, identity } = this.options;
    this.authSent = true;
    this.send(ws, {
      type: 'auth',
      node_id: nodeId,
      public_key: Buffer.from(identity.publicKey).toString('base64'),
      signature: identity.sign(agentAuthMessage(hello.nonce, nodeId)).toString('base64'),
      protocol_version: PROTOCOL_VERSION,
      agent_version: this.options.agentVersion,
      hostname: this.options.hostname,
    }).catch((err: Error) => this.log.warn({ err: err.message }, 'could not send the auth message'));
  }

  private setStatus(status: ApprovalStatus): void {
    const previous = this.status;
    this.status = status;
    this.setState(status);
    if (status === previous) return;
    if (status === 'pending') this.log.info({ key_fingerprint: this.options.identity.fingerprint }, 'waiting for an admin to accept this agent');
    if (status === 'rejected') this.log.warn('the orchestrator has rejected this agent; the link carries nothing but pings');
    if (status === 'accepted') {
      this.log.info('accepted by the orchestrator');
      this.options.onAccepted?.();
    }
  }

  private startHeartbeat(ws: WebSocket): void {
    this.heartbeatTimer = setInterval(() => {
      // Three beats of silence (no pong, no message, no ws ping) means the peer or the path is gone.
      const silentMs = Date.now() - this.lastReceived;
      if (silentMs > 3 * this.heartbeatMs) {
        this.log.warn({ silent_ms: silentMs }, 'nothing heard from the orchestrator for 3 heartbeats; reconnecting');
        ws.terminate();
        return;
      }
      this.send(ws, { type: 'ping', ts: Date.now() }).catch(() => undefined);
    }, this.heartbeatMs);
  }

  private onClose(ws: WebSocket, code: number, reason: string): void {
    if (ws !== this.ws) return;
    const opened = this.current !== 'connecting';
    this.ws = null;
    this.clearTimers();
    const upMs = this.welcomedAt ? Date.now() - this.welcomedAt : 0;
    this.status = null;
    if (this.stopped) return void this.closed?.();
    const { message, level } = this.explainClose(code, opened);
    this.log[level]({ code, reason: reason || undefined, err: this.lastError ?? undefined, up_ms: upMs || undefined }, message);
    this.lastError = null;
    if (SLOW_RETRY_CODES.has(code)) this.slowRetry = true;
    if (upMs >= this.stableAfterMs) this.backoff.reset();
    this.scheduleReconnect();
  }

  private explainClose(code: number, opened: boolean): { message: string; level: 'info' | 'warn' | 'error' } {
    switch (code) {
      case LINK_CLOSE.protocolMismatch:
        return { level: 'error', message: `the link was closed: the orchestrator does not speak agent protocol ${PROTOCOL_VERSION}` };
      case LINK_CLOSE.authFailed:
        return { level: 'error', message: 'the orchestrator refused this agent\'s signature' };
      case LINK_CLOSE.keyMismatch:
        return {
          level: 'error',
          message:
            `the orchestrator knows node id "${this.options.nodeId}" with a different key (this agent's key is ${this.options.identity.fingerprint}); ` +
            'if the machine was reinstalled, an admin must reject and delete the old record',
        };
      case LINK_CLOSE.rejected:
        return { level: 'warn', message: 'the orchestrator rejected this agent and closed the link' };
      case LINK_CLOSE.replaced:
        return { level: 'warn', message: 'another connection with this node id replaced this one' };
      case LINK_CLOSE.badMessage:
        return { level: 'error', message: 'the orchestrator closed the link over a message it could not read' };
      case LINK_CLOSE.deleted:
        return { level: 'warn', message: 'an admin deleted this agent\'s record; it will enrol again' };
      case 1001:
        return { level: 'info', message: 'the orchestrator is going away (restart or shutdown)' };
      default:
        return { level: 'warn', message: opened ? 'the link to the orchestrator closed' : 'cannot reach the orchestrator' };
    }
  }

  private scheduleReconnect(): void {
    if (this.stopped) return;
    const delay = this.slowRetry ? this.backoff.max() : this.backoff.next();
    this.slowRetry = false;
    this.setState('waiting');
    this.log.info({ delay_ms: delay, attempt: this.backoff.attempts }, `reconnecting in ${(delay / 1000).toFixed(1)} s`);
    this.retryTimer = setTimeout(() => void this.connect(), delay);
  }
}
