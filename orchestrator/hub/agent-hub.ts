import websocket from '@fastify/websocket';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { randomBytes } from 'node:crypto';
import type { WebSocket } from 'ws';
import {
  AGENT_LINK_PATH,
  agentAuthMessage,
  type ApprovalStatus,
  decodeTerminalFrame,
  LINK_CLOSE,
  MAX_FRAME_BYTES,
  PROTOCOL_VERSION,
  protocolMajor,
  type ServerMessage,
  TERMINAL_FRAME,
} from '../../common/protocol.js';
import { keyFingerprint } from '../../common/node/key-fingerprint.js';
import type { AgentPresence } from '../services/agent-presence.js';
import type { AgentsService } from '../services/agents.js';
import type { AuditService } from '../services/audit.js';
import { verifyEd25519 } from '../services/keys.js';
import { checkAttributes, checkAuth, checkMetrics, checkStateReport, checkTerminal, parseFrame, type StateReport, type TerminalMessage } from './link-messages.js';

const AUTH_TIMEOUT_MS = 10_000;
const MAX_BAD_FRAMES = 100;

export interface MetricsSink {
  ingest(nodeId: string, samples: unknown[], receivedAt?: number): unknown;
}

/** Where terminal traffic from agents goes (the terminal service). */
export interface TerminalSink {
  /** Output bytes of a session, straight from a binary frame of an accepted agent. */
  output(nodeId: string, sessionId: string, payload: Buffer): void;
  message(nodeId: string, message: TerminalMessage): void;
  /** The agent's link closed or was replaced: its ptys are gone with it. */
  agentGone(nodeId: string): void;
}

/** Where desired-state reports from agents go (the state runner). */
export interface StateSink {
  message(nodeId: string, message: StateReport): void;
  /** The agent's link closed or was replaced: a run in progress will never report. */
  agentGone(nodeId: string): void;
}

interface Link {
  socket: WebSocket;
  ip: string | null;
  nonce: string;
  nodeId?: string;
  status?: ApprovalStatus;
  lastHeard: number;
  badFrames: number;
}

export interface HubOptions {
  heartbeatS: number;
}

/**
 * The orchestrator's end of every agent link: authenticates agents by their key,
 * pins first-seen keys, tracks presence, and carries nothing but status to agents
 * that are not accepted. A bad frame is logged and dropped; it never ends the process.
 */
export class AgentHub {
  private readonly links = new Map<string, Link>();
  private readonly pendingAuth = new Set<Link>();
  private sweepTimer: NodeJS.Timeout | undefined;
  private flushTimer: NodeJS.Timeout | undefined;
  private log!: FastifyBaseLogger;
  private terminals: TerminalSink | undefined;
  private states: StateSink | undefined;

  constructor(
    private readonly agents: AgentsService,
    private readonly presence: AgentPresence,
    private readonly audit: AuditService,
    private readonly metrics: MetricsSink,
    private readonly options: HubOptions,
  ) {
    agents.events.on('status', (nodeId, status) => this.onStatus(nodeId, status));
    agents.events.on('deleted', (nodeId) => this.close(nodeId, LINK_CLOSE.deleted, 'agent record deleted'));
  }

  async register(app: FastifyInstance): Promise<void> {
    this.log = app.log.child({ component: 'agent-hub' });
    await app.register(websocket, { options: { maxPayload: MAX_FRAME_BYTES } });
    app.get(AGENT_LINK_PATH, { websocket: true, schema: { hide: true } }, (socket, request) => this.accept(socket, request.ip ?? null));
    this.sweepTimer = setInterval(() => this.sweep(), Math.max(1000, (this.options.heartbeatS * 1000) / 2));
    this.flushTimer = setInterval(() => this.flushLastSeen(), 10_000);
    this.sweepTimer.unref();
    this.flushTimer.unref();
  }

  setTerminalSink(sink: TerminalSink): void {
    this.terminals = sink;
  }

  setStateSink(sink: StateSink): void {
    this.states = sink;
  }

  /** An accepted agent's live link, the only kind that carries work. */
  private acceptedLink(nodeId: string): Link | undefined {
    const link = this.links.get(nodeId);
    return link && link.status === 'accepted' && link.socket.readyState === link.socket.OPEN ? link : undefined;
  }

  /** Whether an accepted agent has a live link now. */
  isLinked(nodeId: string): boolean {
    return this.acceptedLink(nodeId) !== undefined;
  }

  /** Sends a message to an accepted agent's live link; false when there is none. */
  sendTo(nodeId: string, message: ServerMessage): boolean {
    const link = this.acceptedLink(nodeId);
    if (!link) return false;
    link.socket.send(JSON.stringify(message));
    return true;
  }

  /** Sends a binary terminal frame to an accepted agent's live link; false when there is none. */
  sendBinary(nodeId: string, frame: Uint8Array): boolean {
    const link = this.acceptedLink(nodeId);
    if (!link) return false;
    link.socket.send(frame, { binary: true });
    return true;
  }

  /** Bytes queued on an agent's link and not yet written to its socket (0 without a link). */
  bufferedAmount(nodeId: string): number {
    return this.links.get(nodeId)?.socket.bufferedAmount ?? 0;
  }

  connectedCount(): number {
    return this.links.size;
  }

  private send(link: Link, message: ServerMessage): void {
    if (link.socket.readyState === link.socket.OPEN) link.socket.send(JSON.stringify(message));
  }

  private accept(socket: WebSocket, ip: string | null): void {
    const link: Link = { socket, ip, nonce: randomBytes(24).toString('base64url'), lastHeard: Date.now(), badFrames: 0 };
    this.pendingAuth.add(link);
    const authTimer = setTimeout(() => {
      if (!link.nodeId) socket.close(LINK_CLOSE.authFailed, 'no auth message in time');
    }, AUTH_TIMEOUT_MS);
    socket.on('message', (data, isBinary) => {
      try {
        this.onFrame(link, data as Buffer, isBinary);
      } catch (err) {
        this.log.error({ err, nodeId: link.nodeId }, 'agent frame handling failed');
      }
    });
    socket.on('close', () => {
      clearTimeout(authTimer);
      this.pendingAuth.delete(link);
      if (link.nodeId && this.links.get(link.nodeId) === link) {
        this.links.delete(link.nodeId);
        this.presence.disconnected(link.nodeId);
        this.log.info({ nodeId: link.nodeId }, 'agent offline');
        this.terminals?.agentGone(link.nodeId);
        this.states?.agentGone(link.nodeId);
      }
    });
    socket.on('error', (err) => this.log.debug({ err, nodeId: link.nodeId }, 'agent link error'));
    this.send(link, { type: 'hello', protocol_version: PROTOCOL_VERSION, nonce: link.nonce });
  }

  private bad(link: Link, reason: string): void {
    link.badFrames++;
    this.log.warn({ nodeId: link.nodeId, ip: link.ip, reason }, 'ignored a bad frame from an agent');
    // A peer that only sends garbage is cut off; the process carries on either way.
    if (link.badFrames > MAX_BAD_FRAMES) link.socket.close(LINK_CLOSE.badMessage, 'too many bad frames');
  }

  private onFrame(link: Link, data: Buffer, isBinary: boolean): void {
    link.lastHeard = Date.now();
    if (isBinary && link.nodeId) return this.onBinary(link, link.nodeId, data);
    const parsed = parseFrame(data, isBinary);
    if (!parsed.ok) return this.bad(link, parsed.reason);
    const m = parsed.message as unknown as Record<string, unknown>;
    if (!link.nodeId) {
      if (m.type !== 'auth') return this.bad(link, `expected auth first, got ${String(m.type)}`);
      return this.authenticate(link, m);
    }
    if (link.nodeId) this.presence.touch(link.nodeId, link.lastHeard);
    switch (m.type) {
      case 'ping':
        this.send(link, { type: 'pong', ts: typeof m.ts === 'number' ? m.ts : Date.now() });
        return;
      case 'auth':
        return this.bad(link, 'auth sent twice');
      case 'attributes': {
        if (link.status !== 'accepted') return; // pending and rejected agents' links carry nothing but status
        const attrs = checkAttributes(m);
        if (!attrs.ok) return this.bad(link, attrs.reason);
        this.agents.recordAttributes(link.nodeId, attrs.message);
        return;
      }
      case 'metrics': {
        if (link.status !== 'accepted') return;
        const samples = checkMetrics(m);
        if (!samples.ok) return this.bad(link, samples.reason);
        this.metrics.ingest(link.nodeId, samples.message, Date.now());
        return;
      }
      case 'term_opened':
      case 'term_error':
      case 'term_exit': {
        if (link.status !== 'accepted') return this.bad(link, `${m.type} from an agent that is not accepted`);
        const checked = checkTerminal(m);
        if (!checked.ok) return this.bad(link, checked.reason);
        this.terminals?.message(link.nodeId, checked.message);
        return;
      }
      case 'state_result':
      case 'state_done': {
        if (link.status !== 'accepted') return this.bad(link, `${m.type} from an agent that is not accepted`);
        const checked = checkStateReport(m);
        if (!checked.ok) return this.bad(link, checked.reason);
        this.states?.message(link.nodeId, checked.message);
        return;
      }
    }
  }

  /** Binary frames carry terminal output; only accepted agents have terminals. */
  private onBinary(link: Link, nodeId: string, data: Buffer | ArrayBuffer | Buffer[]): void {
    this.presence.touch(nodeId, link.lastHeard);
    if (link.status !== 'accepted') return this.bad(link, 'binary frame from an agent that is not accepted');
    const bytes = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
    const frame = decodeTerminalFrame(bytes);
    if (!frame) return this.bad(link, 'binary frame is not a terminal frame');
    if (frame.kind !== TERMINAL_FRAME.output) return this.bad(link, 'agents send only terminal output frames');
    this.terminals?.output(nodeId, frame.sessionId, frame.payload as Buffer);
  }

  private authenticate(link: Link, m: Record<string, unknown>): void {
    const checked = checkAuth(m);
    if (!checked.ok) {
      this.send(link, { type: 'error', code: 'bad-auth', message: checked.reason });
      return link.socket.close(LINK_CLOSE.authFailed, checked.reason.slice(0, 100));
    }
    const { message, publicKey, signature } = checked.message;
    if (protocolMajor(message.protocol_version) !== protocolMajor(PROTOCOL_VERSION)) {
      const text = `protocol ${message.protocol_version} is not supported; this orchestrator speaks ${PROTOCOL_VERSION}`;
      this.send(link, { type: 'error', code: 'protocol-mismatch', message: text });
      return link.socket.close(LINK_CLOSE.protocolMismatch, text.slice(0, 120));
    }
    const fingerprint = keyFingerprint(publicKey);
    if (!verifyEd25519(publicKey, Buffer.from(agentAuthMessage(link.nonce, message.node_id)), signature)) {
      this.audit.record({ actor_type: 'agent', actor: message.node_id, action: 'agent.auth', target: message.node_id, outcome: 'denied', source_ip: link.ip, details: { reason: 'bad signature', key_fingerprint: fingerprint } });
      this.send(link, { type: 'error', code: 'bad-signature', message: 'the signature does not verify with the presented key' });
      return link.socket.close(LINK_CLOSE.authFailed, 'bad signature');
    }
    const result = this.agents.enroll({
      node_id: message.node_id,
      public_key: publicKey.toString('base64'),
      key_fingerprint: fingerprint,
      hostname: message.hostname,
      agent_version: message.agent_version,
      address: link.ip,
    });
    if (result.outcome === 'key_mismatch') {
      this.audit.record({
        actor_type: 'agent',
        actor: message.node_id,
        action: 'agent.key_mismatch',
        target: message.node_id,
        outcome: 'denied',
        source_ip: link.ip,
        details: { pinned_fingerprint: result.pinned, presented_fingerprint: fingerprint },
      });
      this.log.warn({ nodeId: message.node_id, ip: link.ip, pinned: result.pinned, presented: fingerprint }, 'agent key mismatch: refused');
      this.send(link, { type: 'error', code: 'key-mismatch', message: `node ${message.node_id} is known with another key` });
      return link.socket.close(LINK_CLOSE.keyMismatch, 'key mismatch');
    }
    if (result.created) {
      this.audit.record({ actor_type: 'agent', actor: message.node_id, action: 'agent.enroll', target: message.node_id, outcome: 'success', source_ip: link.ip, details: { key_fingerprint: fingerprint, hostname: message.hostname, agent_version: message.agent_version } });
    }
    this.pendingAuth.delete(link);
    link.nodeId = message.node_id;
    link.status = result.status;
    this.send(link, { type: 'welcome', status: result.status, heartbeat_s: this.options.heartbeatS });
    if (result.status === 'rejected') return link.socket.close(LINK_CLOSE.rejected, 'rejected');
    const previous = this.links.get(message.node_id);
    this.links.set(message.node_id, link);
    if (previous) {
      previous.socket.close(LINK_CLOSE.replaced, 'replaced by a newer link');
      // The old link's sessions went with it; the new link starts with none.
      this.terminals?.agentGone(message.node_id);
      this.states?.agentGone(message.node_id);
    } else this.presence.connected(message.node_id);
    this.log.info({ nodeId: message.node_id, status: result.status, ip: link.ip }, 'agent online');
  }

  private onStatus(nodeId: string, status: ApprovalStatus): void {
    const link = this.links.get(nodeId);
    if (!link) return;
    link.status = status;
    this.send(link, { type: 'status', status });
    // Revoking an agent closes its link at once.
    if (status === 'rejected') link.socket.close(LINK_CLOSE.rejected, 'rejected');
  }

  private close(nodeId: string, code: number, reason: string): void {
    this.links.get(nodeId)?.socket.close(code, reason);
  }

  /** Offline after three missed heartbeats, even when TCP never says the peer went away. */
  private sweep(): void {
    const deadline = Date.now() - 3 * this.options.heartbeatS * 1000;
    for (const link of this.links.values()) if (link.lastHeard < deadline) link.socket.terminate();
  }

  private flushLastSeen(): void {
    try {
      this.agents.flushLastSeen(this.presence.takeDirty());
    } catch (err) {
      this.log.error({ err }, 'could not store last-seen times');
    }
  }

  stop(): void {
    clearInterval(this.sweepTimer);
    clearInterval(this.flushTimer);
    this.flushLastSeen();
    for (const link of [...this.links.values(), ...this.pendingAuth]) link.socket.close(1001, 'orchestrator shutting down');
  }
}
