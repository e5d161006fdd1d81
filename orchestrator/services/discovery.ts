import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import os from 'node:os';
import { DISCOVERY_MAGIC, type DiscoveryProbe } from '../../common/protocol.js';
import type { DiscoveredAgent } from '../../common/schemas/discovery.js';

const MAX_ANSWER_BYTES = 4096;

export interface DiscoveryOptions {
  /** UDP port agents listen on. */
  port: number;
  /** Probe every interface's broadcast address (off: only explicit targets). */
  broadcast: boolean;
  /** Scheme and port of the orchestrator, for the URL put in each probe. */
  scheme: 'http' | 'https';
  apiPort: () => number;
  /** The listen address; a specific one is what agents must dial. */
  bind: string;
  /** Overrides the per-interface URL, e.g. behind NAT or a DNS name. */
  publicUrl?: string;
  fingerprint: string | null;
  isKnown: (nodeId: string) => boolean;
}

interface Probe {
  address: string;
  url: string;
}

function ipv4ToInt(ip: string): number {
  return ip.split('.').reduce((n, part) => (n << 8) + Number(part), 0) >>> 0;
}

function intToIpv4(n: number): string {
  return [24, 16, 8, 0].map((shift) => (n >>> shift) & 255).join('.');
}

/** Broadcast address of every non-internal IPv4 interface, with that interface's own address. */
export function broadcastTargets(): { broadcast: string; local: string }[] {
  const out: { broadcast: string; local: string }[] = [];
  for (const list of Object.values(os.networkInterfaces())) {
    for (const a of list ?? []) {
      if (a.family !== 'IPv4' || a.internal) continue;
      const broadcast = intToIpv4((ipv4ToInt(a.address) | ~ipv4ToInt(a.netmask)) >>> 0);
      if (!out.some((t) => t.broadcast === broadcast)) out.push({ broadcast, local: a.address });
    }
  }
  return out;
}

/** The local address the kernel would use to reach `target` (no packet is sent). */
function localAddressToward(target: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const s = dgram.createSocket('udp4');
    s.once('error', () => {
      s.close();
      resolve('127.0.0.1');
    });
    s.connect(port, target, () => {
      const local = s.address().address;
      s.close();
      resolve(local);
    });
  });
}

function isString(v: unknown, max: number): v is string {
  return typeof v === 'string' && v.length <= max;
}

/** Checks an answer datagram; anything malformed is dropped. */
function parseAnswer(buf: Buffer, nonce: string): Omit<DiscoveredAgent, 'address' | 'known'> | undefined {
  if (buf.length > MAX_ANSWER_BYTES) return undefined;
  let m: Record<string, unknown>;
  try {
    m = JSON.parse(buf.toString('utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (!m || typeof m !== 'object' || m.magic !== DISCOVERY_MAGIC || m.type !== 'answer' || m.nonce !== nonce) return undefined;
  if (!isString(m.node_id, 63) || !/^[a-z0-9][a-z0-9._-]{0,62}$/.test(m.node_id)) return undefined;
  if (!isString(m.hostname, 255) || !isString(m.agent_version, 50) || !isString(m.key_fingerprint, 100) || typeof m.enrolled !== 'boolean') return undefined;
  const addresses = Array.isArray(m.addresses) ? m.addresses.filter((a): a is string => isString(a, 64)).slice(0, 32) : [];
  return { node_id: m.node_id, hostname: m.hostname, agent_version: m.agent_version, key_fingerprint: m.key_fingerprint, enrolled: m.enrolled, addresses };
}

export class DiscoveryService {
  constructor(private readonly options: DiscoveryOptions) {}

  private url(local: string): string {
    if (this.options.publicUrl) return this.options.publicUrl;
    const wildcard = this.options.bind === '0.0.0.0' || this.options.bind === '::' || this.options.bind === '';
    const host = wildcard ? local : this.options.bind;
    return `${this.options.scheme}://${host.includes(':') ? `[${host}]` : host}:${this.options.apiPort()}`;
  }

  /**
   * Sends one probe to every interface's broadcast address (and to extra targets),
   * then listens `waitMs` for answers. Each probe carries the URL agents on that
   * network can reach this orchestrator at.
   */
  async discover(waitMs: number, targets: string[] = []): Promise<{ sent_to: string[]; items: DiscoveredAgent[] }> {
    const nonce = randomBytes(16).toString('base64url');
    const probes: Probe[] = this.options.broadcast ? broadcastTargets().map((t) => ({ address: t.broadcast, url: this.url(t.local) })) : [];
    for (const target of targets) {
      if (!probes.some((p) => p.address === target)) probes.push({ address: target, url: this.url(await localAddressToward(target, this.options.port)) });
    }
    const heard = new Map<string, DiscoveredAgent>();
    const socket = dgram.createSocket({ type: 'udp4', reuseAddr: true });
    socket.on('message', (buf, rinfo) => {
      const answer = parseAnswer(buf, nonce);
      if (answer && !heard.has(answer.node_id)) heard.set(answer.node_id, { ...answer, address: rinfo.address, known: this.options.isKnown(answer.node_id) });
    });
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.bind(0, resolve));
    socket.setBroadcast(true);
    const sentTo: string[] = [];
    await Promise.all(
      probes.map(
        (p) =>
          new Promise<void>((resolve) => {
            const probe: DiscoveryProbe = { magic: DISCOVERY_MAGIC, type: 'probe', nonce, orchestrator_url: p.url, fingerprint: this.options.fingerprint };
            socket.send(JSON.stringify(probe), this.options.port, p.address, (err) => {
              if (!err) sentTo.push(p.address);
              resolve();
            });
          }),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, waitMs));
    socket.close();
    return { sent_to: sentTo, items: [...heard.values()].sort((a, b) => a.node_id.localeCompare(b.node_id)) };
  }
}
