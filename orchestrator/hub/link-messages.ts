import type { AgentMessage, AuthMessage, StateDoneMessage, StateResourceResult, StateResultMessage, TermErrorMessage, TermExitMessage, TermOpenedMessage } from '../../common/protocol.js';
import { RESOURCE_TYPES } from '../../common/modules/index.js';
import { RESOURCE_STATUSES } from '../../common/schemas/state.js';
import { isSessionId, NODE_ID_PATTERN, STATE_DONE_CODES } from '../../common/protocol.js';

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
    case 'term_opened':
    case 'term_error':
    case 'term_exit':
    case 'state_result':
    case 'state_done':
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

export type TerminalMessage = TermOpenedMessage | TermErrorMessage | TermExitMessage;

function intOrNull(v: unknown, min: number, max: number): v is number | null {
  return v === null || (Number.isInteger(v) && (v as number) >= min && (v as number) <= max);
}

/** term_opened, term_error and term_exit, field by field; the result carries only known fields. */
export function checkTerminal(m: Record<string, unknown>): Parsed<TerminalMessage> {
  if (!isSessionId(m.session_id)) return { ok: false, reason: `${String(m.type)}: session_id must be a lower-case UUID` };
  const session_id = m.session_id;
  switch (m.type) {
    case 'term_opened':
      if (!Number.isInteger(m.pid) || (m.pid as number) < 1 || (m.pid as number) > 2 ** 31) return { ok: false, reason: 'term_opened: pid must be a positive integer' };
      if (!boundedString(m.shell, 4096)) return { ok: false, reason: 'term_opened: shell must be a string of 1-4096 characters' };
      if (!boundedString(m.user, 256)) return { ok: false, reason: 'term_opened: user must be a string of 1-256 characters' };
      return { ok: true, message: { type: 'term_opened', session_id, pid: m.pid as number, shell: m.shell, user: m.user } };
    case 'term_error':
      if (typeof m.message !== 'string' || m.message.length > 4096) return { ok: false, reason: 'term_error: message must be a string of at most 4096 characters' };
      return { ok: true, message: { type: 'term_error', session_id, message: m.message } };
    case 'term_exit':
      if (!intOrNull(m.exit_code, -(2 ** 31), 2 ** 31)) return { ok: false, reason: 'term_exit: exit_code must be an integer or null' };
      if (!intOrNull(m.signal, 0, 255)) return { ok: false, reason: 'term_exit: signal must be an integer 0-255 or null' };
      return { ok: true, message: { type: 'term_exit', session_id, exit_code: m.exit_code, signal: m.signal } };
    default:
      return { ok: false, reason: `not a terminal message: ${String(m.type).slice(0, 40)}` };
  }
}

export type StateReport = StateResultMessage | StateDoneMessage;

const MAX_TEXT = 2 * 1024 * 1024;

function optionalText(v: unknown, max: number): boolean {
  return v === undefined || (typeof v === 'string' && v.length <= max);
}

/** state_result and state_done, field by field; the result carries only known fields. */
export function checkStateReport(m: Record<string, unknown>): Parsed<StateReport> {
  if (!isSessionId(m.run_id)) return { ok: false, reason: `${String(m.type)}: run_id must be a lower-case UUID` };
  const run_id = m.run_id;
  if (m.type === 'state_done') {
    if (typeof m.ok !== 'boolean') return { ok: false, reason: 'state_done: ok must be a boolean' };
    if (m.code !== undefined && !(STATE_DONE_CODES as readonly string[]).includes(m.code as string)) return { ok: false, reason: 'state_done: unknown code' };
    if (!optionalText(m.message, 4096)) return { ok: false, reason: 'state_done: message must be a string of at most 4096 characters' };
    if (!Number.isInteger(m.results) || (m.results as number) < 0) return { ok: false, reason: 'state_done: results must be a count' };
    const done: StateDoneMessage = { type: 'state_done', run_id, ok: m.ok, results: m.results as number };
    if (m.code !== undefined) done.code = m.code as StateDoneMessage['code'];
    if (m.message !== undefined) done.message = m.message as string;
    return { ok: true, message: done };
  }
  const r = m.result;
  if (!isRecord(r)) return { ok: false, reason: 'state_result: result must be an object' };
  if (!boundedString(r.module, 63) || !boundedString(r.resource_id, 63)) return { ok: false, reason: 'state_result: module and resource_id must be names' };
  if (!(RESOURCE_TYPES as readonly string[]).includes(r.type as string)) return { ok: false, reason: 'state_result: unknown resource type' };
  if (!(RESOURCE_STATUSES as readonly string[]).includes(r.status as string)) return { ok: false, reason: 'state_result: unknown status' };
  if (!Number.isFinite(r.duration_ms) || (r.duration_ms as number) < 0) return { ok: false, reason: 'state_result: duration_ms must be a non-negative number' };
  if (!optionalText(r.message, 65536)) return { ok: false, reason: 'state_result: message too long' };
  if (r.diff !== undefined && (!isRecord(r.diff) || !isRecord(r.diff.properties) || !optionalText(r.diff.content, 4 * MAX_TEXT))) return { ok: false, reason: 'state_result: diff must be {properties, content?}' };
  if (r.notified_by !== undefined && !(Array.isArray(r.notified_by) && r.notified_by.every((x) => typeof x === 'string'))) return { ok: false, reason: 'state_result: notified_by must be a list of ids' };
  const result: StateResourceResult = {
    module: r.module,
    resource_id: r.resource_id,
    type: r.type as StateResourceResult['type'],
    status: r.status as StateResourceResult['status'],
    duration_ms: Math.round(r.duration_ms as number),
  };
  if (r.diff !== undefined) result.diff = r.diff as StateResourceResult['diff'];
  if (r.message !== undefined) result.message = r.message as string;
  if (r.notified_by !== undefined) result.notified_by = r.notified_by as string[];
  if (r.observed !== undefined) result.observed = r.observed;
  if (r.output !== undefined) {
    const o = r.output;
    if (!isRecord(o) || !optionalText(o.stdout, MAX_TEXT) || !optionalText(o.stderr, MAX_TEXT) || !intOrNull(o.exit_code, -(2 ** 31), 2 ** 31)) {
      return { ok: false, reason: 'state_result: output must be {stdout, stderr, exit_code, truncated}' };
    }
    result.output = { stdout: (o.stdout as string | undefined) ?? '', stderr: (o.stderr as string | undefined) ?? '', exit_code: o.exit_code, truncated: o.truncated === true };
  }
  return { ok: true, message: { type: 'state_result', run_id, result } };
}
