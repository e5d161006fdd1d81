// A tiny but real orchestrator end of the agent link for tests: a ws server on loopback
// (plain or TLS) that sends hello, checks the auth signature with node:crypto, answers
// welcome, replies to pings and records every frame. Not the orchestrator's hub: it lets
// tests misbehave on purpose (wrong protocol, garbage frames, silence).
import { createPublicKey, randomBytes, verify } from 'node:crypto';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import {
  agentAuthMessage,
  AGENT_LINK_PATH,
  decodeTerminalFrame,
  encodeTerminalFrame,
  LINK_CLOSE,
  PROTOCOL_VERSION,
  TERMINAL_FRAME,
  type AgentMessage,
  type ApprovalStatus,
  type AuthMessage,
} from '../../../common/protocol.js';

const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export function verifyAgentSignature(auth: AuthMessage, nonce: string): boolean {
  const raw = Buffer.from(auth.public_key, 'base64');
  if (raw.length !== 32) return false;
  const key = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
  return verify(null, Buffer.from(agentAuthMessage(nonce, auth.node_id), 'utf8'), key, Buffer.from(auth.signature, 'base64'));
}

export interface HubConnection {
  ws: WebSocket;
  nonce: string;
  path: string;
  auth: AuthMessage | null;
  signatureOk: boolean | null;
  messages: AgentMessage[];
  /** Binary frames from the agent (terminal output), decoded. */
  frames: { kind: number; sessionId: string; payload: Buffer }[];
  closeCode: number | null;
}

export interface FakeHubOptions {
  status?: ApprovalStatus;
  heartbeatS?: number;
  protocolVersion?: string;
  /** Serve TLS with this key and certificate (PEM). */
  tls?: { key: string; cert: string };
  /** Stop answering (no pong, nothing) once the welcome is sent. */
  silentAfterWelcome?: boolean;
}

export class FakeHub {
  readonly connections: HubConnection[] = [];
  status: ApprovalStatus;
  silent: boolean;
  private waiters: { predicate: () => boolean; resolve: () => void }[] = [];

  private constructor(
    private readonly wss: WebSocketServer,
    private readonly server: https.Server | null,
    readonly url: string,
    private readonly options: FakeHubOptions,
  ) {
    this.status = options.status ?? 'accepted';
    this.silent = options.silentAfterWelcome ?? false;
    wss.on('connection', (ws, req) => this.onConnection(ws, req.url ?? ''));
  }

  static start(options: FakeHubOptions = {}): Promise<FakeHub> {
    return FakeHub.startOn(0, options);
  }

  /** Listens on a given port (0: any free one), e.g. to come back where a closed hub was. */
  static async startOn(port: number, options: FakeHubOptions = {}): Promise<FakeHub> {
    if (options.tls) {
      const server = https.createServer({ key: options.tls.key, cert: options.tls.cert });
      const wss = new WebSocketServer({ server });
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
      return new FakeHub(wss, server, `https://127.0.0.1:${(server.address() as AddressInfo).port}`, options);
    }
    const wss = new WebSocketServer({ host: '127.0.0.1', port });
    await new Promise<void>((resolve) => wss.once('listening', resolve));
    return new FakeHub(wss, null, `http://127.0.0.1:${(wss.address() as AddressInfo).port}`, options);
  }

  get last(): HubConnection | undefined {
    return this.connections.at(-1);
  }

  /** Every message of a type, over all connections, in arrival order. */
  all<T extends AgentMessage['type']>(type: T): Extract<AgentMessage, { type: T }>[] {
    return this.connections.flatMap((c) => c.messages.filter((m): m is Extract<AgentMessage, { type: T }> => m.type === type));
  }

  /** Resolves once the predicate holds (checked after every event), or fails after timeoutMs. */
  waitUntil(predicate: () => boolean, timeoutMs = 5000, what: string | (() => string) = 'condition'): Promise<void> {
    if (predicate()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`hub: ${typeof what === 'function' ? what() : what} not met in ${timeoutMs} ms`)), timeoutMs);
      this.waiters.push({ predicate, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  /** Sends a JSON message (or raw text) to the live connection. */
  send(message: object | string): void {
    const c = this.last!;
    c.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** Sends raw bytes as a binary frame to the live connection. */
  sendBinary(frame: Uint8Array): void {
    this.last!.ws.send(frame, { binary: true });
  }

  /** Sends terminal input for a session. */
  sendInput(sessionId: string, text: string): void {
    this.sendBinary(encodeTerminalFrame(TERMINAL_FRAME.input, sessionId, Buffer.from(text, 'utf8')));
  }

  /** Output bytes of a session received so far, over all connections. */
  outputBytes(sessionId: string): number {
    return this.connections.reduce((n, c) => n + c.frames.filter((f) => f.sessionId === sessionId).reduce((m, f) => m + f.payload.length, 0), 0);
  }

  /** Output of a session as text, over all connections. */
  output(sessionId: string): string {
    return Buffer.concat(this.connections.flatMap((c) => c.frames.filter((f) => f.sessionId === sessionId).map((f) => f.payload))).toString('utf8');
  }

  /** Changes the approval status of every live connection, as an admin would. */
  setStatus(status: ApprovalStatus): void {
    this.status = status;
    for (const c of this.connections) if (c.ws.readyState === c.ws.OPEN && c.signatureOk) c.ws.send(JSON.stringify({ type: 'status', status }));
  }

  async close(): Promise<void> {
    for (const c of this.connections) c.ws.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    if (this.server) await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  private notify(): void {
    for (const w of [...this.waiters]) {
      if (w.predicate()) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  }

  private onConnection(ws: WebSocket, path: string): void {
    const conn: HubConnection = { ws, nonce: randomBytes(24).toString('base64url'), path, auth: null, signatureOk: null, messages: [], frames: [], closeCode: null };
    this.connections.push(conn);
    ws.on('close', (code) => {
      conn.closeCode = code;
      this.notify();
    });
    ws.on('message', (data, isBinary) => {
      if (isBinary) {
        const frame = decodeTerminalFrame(data as Buffer);
        if (frame) conn.frames.push({ ...frame, payload: Buffer.from(frame.payload) });
        this.notify();
        return;
      }
      const message = JSON.parse(data.toString()) as AgentMessage;
      conn.messages.push(message);
      if (message.type === 'auth' && conn.auth === null) {
        conn.auth = message;
        conn.signatureOk = path === AGENT_LINK_PATH && verifyAgentSignature(message, conn.nonce);
        if (!conn.signatureOk) {
          ws.send(JSON.stringify({ type: 'error', code: 'auth_failed', message: 'bad signature' }));
          ws.close(LINK_CLOSE.authFailed, 'auth failed');
        } else {
          ws.send(JSON.stringify({ type: 'welcome', status: this.status, heartbeat_s: this.options.heartbeatS ?? 10 }));
        }
      } else if (message.type === 'ping' && !this.silent) {
        ws.send(JSON.stringify({ type: 'pong', ts: message.ts }));
      }
      this.notify();
    });
    ws.send(JSON.stringify({ type: 'hello', protocol_version: this.options.protocolVersion ?? PROTOCOL_VERSION, nonce: conn.nonce }));
    this.notify();
  }
}
