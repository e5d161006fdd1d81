// The agent link: JSON text frames over the WebSocket at /agent/v1 (binary frames are
// reserved for terminal data). One definition used by the orchestrator's hub and the agent.
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

export type ServerMessage = HelloMessage | WelcomeMessage | StatusMessage | PongMessage | ErrorMessage;
export type AgentMessage = AuthMessage | PingMessage | AttributesMessage | MetricsMessage;

/** Largest text frame either side accepts; buffered metrics are sent in chunks below it. */
export const MAX_FRAME_BYTES = 1024 * 1024;
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
