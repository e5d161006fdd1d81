// The agent link: JSON text frames over the WebSocket at /agent/v1 (binary frames are
// reserved for terminal data). One definition used by the orchestrator's hub and the agent.
import type { PropertyValue, ResourceType } from './modules/index.js';
import type { ResourceDiff, ResourceStatus } from './schemas/state.js';
import { PROTOCOL_VERSION } from './version.js';

export { PROTOCOL_VERSION };
export const AGENT_LINK_PATH = '/agent/v1';
/** The agent signs these UTF-8 bytes: prefix + server nonce + ":" + node_id. */
export const AGENT_AUTH_PREFIX = 'corral-agent-v1:';
export const DISCOVERY_PORT = 7391;
export const DISCOVERY_MAGIC = 'corral-discovery-v1';

export function agentAuthMessage(nonce: string, nodeId: string): string {
  return `${AGENT_AUTH_PREFIX}${nonce}:${nodeId}`;
}

/** Major part of "major.minor"; a different major is refused. */
export function protocolMajor(version: string): number {
  const major = Number(version.split('.')[0]);
  return Number.isInteger(major) ? major : NaN;
}

export const NODE_ID_PATTERN = /^[a-z0-9][a-z0-9._-]{0,62}$/;

/** Lower-cases a host name and keeps [a-z0-9._-], as DESIGN.md says node ids look. */
export function nodeIdFromHostname(hostname: string): string {
  const id = hostname.toLowerCase().replace(/[^a-z0-9._-]/g, '-').replace(/^[^a-z0-9]+/, '').slice(0, 63);
  return id || 'agent';
}

export type ApprovalStatus = 'pending' | 'accepted' | 'rejected';

/** Allowed approval changes (DESIGN.md "Agents"); the orchestrator enforces them, the UI offers only these. */
export const APPROVAL_TRANSITIONS: Readonly<Record<ApprovalStatus, readonly ApprovalStatus[]>> = {
  pending: ['accepted', 'rejected'],
  accepted: ['rejected'],
  rejected: ['accepted'],
};

/** Close codes of the agent link (4000-4999 are application codes). */
export const LINK_CLOSE = {
  protocolMismatch: 4002,
  authFailed: 4003,
  keyMismatch: 4004,
  rejected: 4005,
  replaced: 4006,
  badMessage: 4007,
  deleted: 4008,
} as const;

export interface Attributes {
  os: string;
  distribution?: string;
  distribution_version?: string;
  /** os-release PRETTY_NAME, e.g. "Debian GNU/Linux 12 (bookworm)": what people call the system. */
  distribution_pretty_name?: string;
  kernel: string;
  arch: string;
  hostname: string;
  fqdn?: string;
  ips: string[];
  macs: string[];
  cpu_model: string;
  cpu_count: number;
  memory_bytes: number;
  disks: { mount: string; device?: string; fstype?: string; size_bytes: number }[];
  agent_version: string;
  boot_time: string;
  virtualization?: string;
  [key: string]: unknown;
}

export interface MetricsSample {
  /** Milliseconds since the epoch, agent clock. */
  ts: number;
  cpu_percent: number;
  load1: number;
  load5: number;
  load15: number;
  mem_used: number;
  mem_total: number;
  swap_used: number;
  swap_total: number;
  disks: { mount: string; used: number; total: number }[];
  net_rx_bps: number;
  net_tx_bps: number;
  processes: number;
  uptime_s: number;
}

// orchestrator -> agent
export interface HelloMessage {
  type: 'hello';
  protocol_version: string;
  nonce: string;
}
export interface WelcomeMessage {
  type: 'welcome';
  status: ApprovalStatus;
  heartbeat_s: number;
}
export interface StatusMessage {
  type: 'status';
  status: ApprovalStatus;
}
export interface PongMessage {
  type: 'pong';
  ts: number;
}
export interface ErrorMessage {
  type: 'error';
  code: string;
  message: string;
}

// agent -> orchestrator
export interface AuthMessage {
  type: 'auth';
  node_id: string;
  /** Raw 32-byte Ed25519 public key, base64. */
  public_key: string;
  /** Base64 Ed25519 signature of agentAuthMessage(nonce, node_id). */
  signature: string;
  protocol_version: string;
  agent_version: string;
  hostname: string;
}
export interface PingMessage {
  type: 'ping';
  ts: number;
}
export interface AttributesMessage {
  type: 'attributes';
  attributes: Attributes;
}
export interface MetricsMessage {
  type: 'metrics';
  /** Oldest first; buffered samples from a link outage come in one message. */
  samples: MetricsSample[];
}

// Terminals (DESIGN.md "Terminals"). Control messages are JSON text frames; terminal bytes
// travel in binary frames: [kind: 1 byte][session id: 16 bytes, the UUID's bytes][payload].
// Flow control: the agent stops reading the pty while more than TERMINAL_WINDOW_BYTES of
// output are unacknowledged; the orchestrator acknowledges output once it has been written
// on to the operator's stream (and recorded), so a slow reader slows the shell, and memory
// stays bounded at every hop.

export const TERMINAL_FRAME = { output: 0, input: 1 } as const;
export const TERMINAL_HEADER_BYTES = 17;
export const TERMINAL_WINDOW_BYTES = 1024 * 1024;
/** Largest payload of one terminal data frame; the agent splits bigger reads (never inside a UTF-8 sequence). */
export const TERMINAL_CHUNK_BYTES = 64 * 1024;

export interface TermOpenMessage {
  type: 'term_open';
  session_id: string;
  cols: number;
  rows: number;
  /** Absolute path of the shell; the agent's default (its user's login shell) when absent. */
  shell?: string;
  /** Run as this user (only when the agent runs as root). */
  user?: string;
}
export interface TermResizeMessage {
  type: 'term_resize';
  session_id: string;
  cols: number;
  rows: number;
}
export interface TermCloseMessage {
  type: 'term_close';
  session_id: string;
}
export interface TermAckMessage {
  type: 'term_ack';
  session_id: string;
  /** Output bytes of this session consumed since the previous ack. */
  bytes: number;
}
export interface TermOpenedMessage {
  type: 'term_opened';
  session_id: string;
  pid: number;
  shell: string;
  user: string;
}
export interface TermErrorMessage {
  type: 'term_error';
  session_id: string;
  message: string;
}
export interface TermExitMessage {
  type: 'term_exit';
  session_id: string;
  exit_code: number | null;
  signal: number | null;
}

// Desired state (DESIGN.md "Desired state"). The orchestrator expands templates (it holds
// vars, tags, attributes and secrets) and sends each run fully resolved; `mask` lists the
// secret values the run carries so the agent can replace them with ******** in everything
// it sends back or logs. The agent runs one state run at a time, in arrival order.
export const STATE_RUN_MODES = ['apply', 'plan', 'drift'] as const;
export type StateRunMode = (typeof STATE_RUN_MODES)[number];
export const SECRET_MASK = '********';

export interface StateResource {
  module: string;
  id: string;
  type: ResourceType;
  properties: Record<string, PropertyValue>;
  /** Ids in the same module. */
  requires: string[];
  notify: string[];
}

export interface StateRunMessage {
  type: 'state_run';
  run_id: string;
  /** plan and drift only read and diff; apply converges. */
  mode: StateRunMode;
  resources: StateResource[];
  mask: string[];
  /**
   * Apply only: the fingerprint of the plan this apply carries out. The agent re-plans first
   * and refuses (code plan_stale) if the result differs, so what runs is what was reviewed.
   */
  expect_plan?: string;
}

export interface StateOutput {
  stdout: string;
  stderr: string;
  exit_code: number | null;
  truncated: boolean;
}

export interface StateResourceResult {
  module: string;
  resource_id: string;
  type: ResourceType;
  status: ResourceStatus;
  diff?: ResourceDiff;
  message?: string;
  output?: StateOutput;
  duration_ms: number;
  notified_by?: string[];
  /** What the agent read after the run (apply) or before it (plan, drift); long strings as hashes. */
  observed?: unknown;
}

/** One per resource, in run order, before state_done. */
export interface StateResultMessage {
  type: 'state_result';
  run_id: string;
  result: StateResourceResult;
}

/** Why a run did not happen as a whole: the plan it was bound to no longer holds, or the run was malformed. */
export const STATE_DONE_CODES = ['plan_stale', 'bad_run'] as const;

export interface StateDoneMessage {
  type: 'state_done';
  run_id: string;
  /** false: the run as a whole did not happen or stopped (code and message say why). */
  ok: boolean;
  code?: (typeof STATE_DONE_CODES)[number];
  message?: string;
  /** How many state_result messages preceded this one. */
  results: number;
}

export type ServerMessage =
  | StateRunMessage
  | HelloMessage
  | WelcomeMessage
  | StatusMessage
  | PongMessage
  | ErrorMessage
  | TermOpenMessage
  | TermResizeMessage
  | TermCloseMessage
  | TermAckMessage;
export type AgentMessage =
  | AuthMessage
  | PingMessage
  | AttributesMessage
  | MetricsMessage
  | TermOpenedMessage
  | TermErrorMessage
  | TermExitMessage
  | StateResultMessage
  | StateDoneMessage;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function isSessionId(v: unknown): v is string {
  return typeof v === 'string' && UUID.test(v);
}

/** Builds a binary terminal frame. */
export function encodeTerminalFrame(kind: number, sessionId: string, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(TERMINAL_HEADER_BYTES + payload.length);
  out[0] = kind;
  const hex = sessionId.replace(/-/g, '');
  for (let i = 0; i < 16; i++) out[1 + i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  out.set(payload, TERMINAL_HEADER_BYTES);
  return out;
}

/** Reads a binary terminal frame; undefined when it is too short or of an unknown kind. */
export function decodeTerminalFrame(frame: Uint8Array): { kind: number; sessionId: string; payload: Uint8Array } | undefined {
  if (frame.length < TERMINAL_HEADER_BYTES) return undefined;
  const kind = frame[0]!;
  if (kind !== TERMINAL_FRAME.output && kind !== TERMINAL_FRAME.input) return undefined;
  let hex = '';
  for (let i = 1; i < TERMINAL_HEADER_BYTES; i++) hex += frame[i]!.toString(16).padStart(2, '0');
  const sessionId = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  return { kind, sessionId, payload: frame.subarray(TERMINAL_HEADER_BYTES) };
}

/**
 * Largest text frame either side accepts. A state run carries whole modules (2 MiB each) and a
 * resource result up to 1 MiB of stdout and of stderr plus a diff; buffered metrics are still
 * sent in chunks of at most METRICS_FRAME_BYTES.
 */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;
export const METRICS_FRAME_BYTES = 1024 * 1024;
export const MAX_SAMPLES_PER_MESSAGE = 500;

// Discovery datagrams (UDP, JSON).
export interface DiscoveryProbe {
  magic: typeof DISCOVERY_MAGIC;
  type: 'probe';
  nonce: string;
  orchestrator_url: string;
  fingerprint: string | null;
}
export interface DiscoveryAnswer {
  magic: typeof DISCOVERY_MAGIC;
  type: 'answer';
  nonce: string;
  node_id: string;
  hostname: string;
  addresses: string[];
  agent_version: string;
  key_fingerprint: string;
  enrolled: boolean;
}
