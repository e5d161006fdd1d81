import type { AgentMessage, AuthMessage } from '../../common/protocol.js';
import { NODE_ID_PATTERN } from '../../common/protocol.js';

// Everything an agent sends is untrusted: these checks turn a frame into a typed
// message or into a reason, and never throw.

export type Parsed<T> = { ok: true; message: T } | { ok: false; reason: string };

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function boundedString(v: unknown, max: number): v is string {
  return typeof v === 'string' && v.length > 0 && v.length <= max;
}

function base64Bytes(v: unknown, length: number): Buffer | undefined {
  if (typeof v !== 'string' || !/^[A-Za-z0-9+/]+={0,2}$/.test(v)) return undefined;
  const bytes = Buffer.from(v, 'base64');
  return bytes.length === length ? bytes : undefined;
}

export function parseFrame(data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean): Parsed<AgentMessage> {
  if (isBinary) return { ok: false, reason: 'binary frame outside a terminal session' };
  const text = Buffer.isBuffer(data) ? data.toString('utf8') : Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data).toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'frame is not JSON' };
  }
  if (!isRecord(value) || typeof value.type !== 'string') return { ok: false, reason: 'frame has no "type"' };
  switch (value.type) {
    case 'auth':
    case 'ping':
    case 'attributes':
    case 'metrics':
      return { ok: true, message: value as unknown as AgentMessage };
    default:
      return { ok: false, reason: `unknown message type ${JSON.stringify(value.type).slice(0, 40)}` };
  }
}

export interface CheckedAuth {
  message: AuthMessage;
  publicKey: Buffer;
  signature: Buffer;
}

export function checkAuth(m: Record<string, unknown>): Parsed<CheckedAuth> {
  if (!boundedString(m.node_id, 63) || !NODE_ID_PATTERN.test(m.node_id)) return { ok: false, reason: 'node_id must match [a-z0-9][a-z0-9._-]{0,62}' };
  const publicKey = base64Bytes(m.public_key, 32);
  if (!publicKey) return { ok: false, reason: 'public_key must be 32 bytes of base64' };
  const signature = base64Bytes(m.signature, 64);
  if (!signature) return { ok: false, reason: 'signature must be 64 bytes of base64' };
  if (!boundedString(m.protocol_version, 20)) return { ok: false, reason: 'protocol_version missing' };
  if (!boundedString(m.agent_version, 50)) return { ok: false, reason: 'agent_version missing' };
  if (!boundedString(m.hostname, 255)) return { ok: false, reason: 'hostname missing' };
  return { ok: true, message: { message: m as unknown as AuthMessage, publicKey, signature } };
}

/** Attributes are shown as sent, so only their shape and size are checked. */
export function checkAttributes(m: Record<string, unknown>): Parsed<Record<string, unknown>> {
  if (!isRecord(m.attributes)) return { ok: false, reason: 'attributes must be an object' };
  if (JSON.stringify(m.attributes).length > 64 * 1024) return { ok: false, reason: 'attributes larger than 64 KiB' };
  return { ok: true, message: m.attributes };
}

export function checkMetrics(m: Record<string, unknown>): Parsed<unknown[]> {
  if (!Array.isArray(m.samples)) return { ok: false, reason: 'samples must be an array' };
  return { ok: true, message: m.samples };
}
