// UDP discovery listener (DESIGN.md "Discovery"): the orchestrator broadcasts a probe
// with its URL, certificate fingerprint and a nonce; the agent answers by unicast with
// who it is. Anyone on the network can send datagrams here, so everything is checked and
// anything odd is dropped with a debug line: never an exception, never a crash.
import dgram, { type RemoteInfo } from 'node:dgram';
import { DISCOVERY_MAGIC, type DiscoveryAnswer, type DiscoveryProbe } from '../common/protocol.js';
import type { Logger } from './logger.js';

/** A probe is a few hundred bytes; anything much larger is not one. */
export const MAX_DATAGRAM_BYTES = 2048;

export type ParsedProbe = { ok: true; probe: DiscoveryProbe } | { ok: false; reason: string };

function isString(v: unknown, min: number, max: number): v is string {
  return typeof v === 'string' && v.length >= min && v.length <= max;
}

export function parseProbe(datagram: Buffer): ParsedProbe {
  if (datagram.length > MAX_DATAGRAM_BYTES) return { ok: false, reason: `too large (${datagram.length} bytes)` };
  let doc: unknown;
  try {
    doc = JSON.parse(datagram.toString('utf8'));
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return { ok: false, reason: 'not a JSON object' };
  const d = doc as Record<string, unknown>;
  if (d.magic !== DISCOVERY_MAGIC) return { ok: false, reason: 'wrong magic' };
  if (d.type !== 'probe') return { ok: false, reason: 'not a probe' };
  if (!isString(d.nonce, 1, 128)) return { ok: false, reason: 'bad nonce' };
  if (!isString(d.orchestrator_url, 1, 1024)) return { ok: false, reason: 'bad orchestrator_url' };
  if (d.fingerprint !== null && !isString(d.fingerprint, 1, 200)) return { ok: false, reason: 'bad fingerprint' };
  return { ok: true, probe: { magic: DISCOVERY_MAGIC, type: 'probe', nonce: d.nonce, orchestrator_url: d.orchestrator_url, fingerprint: d.fingerprint } };
}

export interface DiscoveryListenerOptions {
  /** 0 picks a free port (tests). */
  port: number;
  /** Default 0.0.0.0: broadcasts arrive on the wildcard address. */
  address?: string;
  log: Logger;
  /** Who this agent is, read at answer time (enrolled changes when the agent joins). */
  identity(): Omit<DiscoveryAnswer, 'magic' | 'type' | 'nonce'>;
  /** Called after a valid probe was answered. */
  onProbe?(probe: DiscoveryProbe, from: RemoteInfo): void;
  /** Answers allowed per second: a spoofed sender address must not turn the agent into a reflector. */
  maxAnswersPerSecond?: number;
}

export class DiscoveryListener {
  private socket: dgram.Socket | null = null;
  private readonly log: Logger;
  private tokens: number;
  private refilledAt = Date.now();
  /** Datagrams ignored since start; tests read it. */
  ignored = 0;
  answered = 0;

  constructor(private readonly options: DiscoveryListenerOptions) {
    this.log = options.log.child({ component: 'discovery' });
    this.tokens = this.rate;
  }

  private get rate(): number {
    return this.options.maxAnswersPerSecond ?? 20;
  }

  /** Binds the socket; resolves with the port it listens on. */
  start(): Promise<number> {
    return new Promise((resolve, reject) => {
      const socket = dgram.createSocket({ type: 'udp4', reuseAddr: true });
      const onBindError = (err: Error) => {
        socket.close();
        reject(err);
      };
      socket.once('error', onBindError);
      socket.on('message', (msg, rinfo) => this.onDatagram(socket, msg, rinfo));
      socket.bind(this.options.port, this.options.address ?? '0.0.0.0', () => {
        socket.off('error', onBindError);
        socket.on('error', (err) => this.log.warn({ err: err.message }, 'discovery socket error'));
        this.socket = socket;
        const port = socket.address().port;
        this.log.info({ port }, 'listening for discovery probes');
        resolve(port);
      });
    });
  }

  stop(): Promise<void> {
    const socket = this.socket;
    this.socket = null;
    return new Promise((resolve) => (socket ? socket.close(() => resolve()) : resolve()));
  }

  private allowAnswer(): boolean {
    const now = Date.now();
    this.tokens = Math.min(this.rate, this.tokens + ((now - this.refilledAt) / 1000) * this.rate);
    this.refilledAt = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  private onDatagram(socket: dgram.Socket, datagram: Buffer, from: RemoteInfo): void {
    try {
      const parsed = parseProbe(datagram);
      if (!parsed.ok) {
        this.ignored++;
        this.log.debug({ from: `${from.address}:${from.port}`, reason: parsed.reason }, 'ignoring a datagram');
        return;
      }
      if (!this.allowAnswer()) {
        this.ignored++;
        this.log.debug({ from: from.address }, 'too many probes; not answering this one');
        return;
      }
      const answer: DiscoveryAnswer = { magic: DISCOVERY_MAGIC, type: 'answer', nonce: parsed.probe.nonce, ...this.options.identity() };
      socket.send(Buffer.from(JSON.stringify(answer)), from.port, from.address, (err) => {
        if (err) this.log.debug({ err: err.message, to: from.address }, 'could not send a discovery answer');
      });
      this.answered++;
      this.log.debug({ from: `${from.address}:${from.port}`, orchestrator: parsed.probe.orchestrator_url }, 'answered a discovery probe');
      this.options.onProbe?.(parsed.probe, from);
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'failed to handle a datagram');
    }
  }
}
