// Checks what the orchestrator sends before the link acts on it. Anything that is not a
// well-formed ServerMessage comes back as a reason to log, never as an exception: a bad
// frame must not take the agent down (DESIGN.md, issue "Agents").
import { isSessionId, type ApprovalStatus, type ServerMessage } from '../../common/protocol.js';
import { checkStateRun } from '../state/run-message.js';

export type Parsed = { ok: true; message: ServerMessage } | { ok: false; reason: string };

const STATUSES: readonly ApprovalStatus[] = ['pending', 'accepted', 'rejected'];

function isString(v: unknown, max: number, min = 0): v is string {
  return typeof v === 'string' && v.length >= min && v.length <= max;
}

function isStatus(v: unknown): v is ApprovalStatus {
  return typeof v === 'string' && (STATUSES as readonly string[]).includes(v);
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

function bad(reason: string): Parsed {
  return { ok: false, reason };
}

export function parseServerMessage(text: string): Parsed {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return bad('not JSON');
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return bad('not a JSON object');
  const m = doc as Record<string, unknown>;
  switch (m.type) {
    case 'hello':
      if (!isString(m.protocol_version, 32, 1)) return bad('hello without a protocol_version string');
      if (!isString(m.nonce, 512, 1)) return bad('hello without a nonce string (1-512 characters)');
      return { ok: true, message: { type: 'hello', protocol_version: m.protocol_version, nonce: m.nonce } };
    case 'welcome':
      if (!isStatus(m.status)) return bad(`welcome with an unknown status ${JSON.stringify(m.status)}`);
      if (typeof m.heartbeat_s !== 'number' || !Number.isFinite(m.heartbeat_s) || m.heartbeat_s <= 0) return bad('welcome without a positive heartbeat_s');
      return { ok: true, message: { type: 'welcome', status: m.status, heartbeat_s: m.heartbeat_s } };
    case 'status':
      if (!isStatus(m.status)) return bad(`status with an unknown status ${JSON.stringify(m.status)}`);
      return { ok: true, message: { type: 'status', status: m.status } };
    case 'pong':
      if (typeof m.ts !== 'number') return bad('pong without a numeric ts');
      return { ok: true, message: { type: 'pong', ts: m.ts } };
    case 'error':
      return {
        ok: true,
        message: {
          type: 'error',
          code: isString(m.code, 200) ? m.code : 'unknown',
          message: isString(m.message, 2000) ? m.message : '',
        },
      };
    // Terminals: the shape is checked here, the ranges (sizes, shells, users) by agent/terminal/.
    case 'term_open':
      if (!isSessionId(m.session_id)) return bad('term_open without a session_id UUID');
      if (!isCount(m.cols) || !isCount(m.rows)) return bad('term_open without integer cols and rows');
      if (m.shell !== undefined && !isString(m.shell, 4096, 1)) return bad('term_open with a shell that is not a string');
      if (m.user !== undefined && !isString(m.user, 256, 1)) return bad('term_open with a user that is not a string');
      return {
        ok: true,
        message: {
          type: 'term_open',
          session_id: m.session_id,
          cols: m.cols,
          rows: m.rows,
          ...(m.shell !== undefined ? { shell: m.shell } : {}),
          ...(m.user !== undefined ? { user: m.user } : {}),
        },
      };
    case 'term_resize':
      if (!isSessionId(m.session_id)) return bad('term_resize without a session_id UUID');
      if (!isCount(m.cols) || !isCount(m.rows)) return bad('term_resize without integer cols and rows');
      return { ok: true, message: { type: 'term_resize', session_id: m.session_id, cols: m.cols, rows: m.rows } };
    case 'term_close':
      if (!isSessionId(m.session_id)) return bad('term_close without a session_id UUID');
      return { ok: true, message: { type: 'term_close', session_id: m.session_id } };
    case 'term_ack':
      if (!isSessionId(m.session_id)) return bad('term_ack without a session_id UUID');
      if (!isCount(m.bytes)) return bad('term_ack without a non-negative integer bytes');
      return { ok: true, message: { type: 'term_ack', session_id: m.session_id, bytes: m.bytes } };
    case 'state_run': {
      const checked = checkStateRun(m);
      return checked.ok ? { ok: true, message: checked.message } : bad(checked.reason);
    }
    default:
      return bad(typeof m.type === 'string' ? `unknown message type "${m.type.slice(0, 64)}"` : 'no message type');
  }
}

/** A short, single-line excerpt of a frame for a log line. */
export function excerpt(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max)}...` : flat;
}
