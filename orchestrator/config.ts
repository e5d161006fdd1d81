import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { PACKAGE_ROOT } from '../common/node/package-root.js';

/** Settings of one orchestrator. Precedence: CLI flags > CORRAL_* environment > corral.yaml > defaults. */
export interface OrchestratorConfig {
  dataDir?: string;
  port?: number;
  bind?: string;
  /** Serve plain HTTP instead of HTTPS (loopback and tests). */
  http?: boolean;
  /** OpenSSH public key line of the first admin, or a path to a .pub file. */
  adminKey?: string;
  tokenTtlHours?: number;
  authRateLimit?: number;
  maxAuthFailures?: number;
  bodyLimit?: number;
  logLevel?: string;
  /** Seconds between agent heartbeats; an agent is offline after three missed ones. */
  heartbeatS?: number;
  /** UDP port agents listen on for discovery probes. */
  discoveryPort?: number;
  /** Whether POST /discover broadcasts on every IPv4 interface; off, it probes only the given targets. */
  discoveryBroadcast?: boolean;
  /** URL agents should dial, put in discovery probes; default: the probing interface's address. */
  publicUrl?: string;
  /** Where the built web UI lives; defaults to dist/renderer in the package. */
  uiDir?: string;
  /** Print the startup banner (address, fingerprint, setup link) to stdout. */
  banner?: boolean;
  /** Open terminal sessions allowed per agent. */
  terminalMaxPerAgent?: number;
  /** A terminal with neither input nor output for this long is closed (0: never). */
  terminalIdleTimeoutS?: number;
  /** Largest transcript file; past it one marker event is written and recording stops. */
  terminalTranscriptCapBytes?: number;
  /** Record what operators type ("i" events) in transcripts, not only what terminals print. */
  terminalRecordInput?: boolean;
  /** Seconds between scheduled drift checks of every agent with a baseline (0: none). */
  driftIntervalS?: number;
  /** Agents an assignment apply or plan works on at the same time. */
  applyConcurrency?: number;
  /** An accepted agent announced offline only after staying away this long (0: at once). */
  offlineNotifyDelayS?: number;
  /** First retry of a failed channel delivery after this long; each next one waits twice as long. */
  deliveryRetryBaseS?: number;
  /** Longest wait between two delivery attempts. */
  deliveryRetryCapS?: number;
  /** Attempts before a delivery is given up (failed). */
  deliveryMaxAttempts?: number;
  /** A channel that has not answered within this long counts as a failed attempt. */
  deliveryTimeoutS?: number;
  /** Events and notifications older than this are deleted (0: kept forever). */
  notificationRetentionDays?: number;
  /**
   * Shows a native notification (the desktop shell passes Electron's); the `desktop`
   * channel uses it. Not a setting: only an embedder can give a function.
   */
  desktopNotifier?: (notice: { title: string; body: string; severity: 'info' | 'warning' | 'critical' }) => boolean;
  /**
   * The 32-byte key that seals secrets, from an embedder that keeps it itself (the
   * desktop shell, with Electron safeStorage). Not a setting: there is no flag and no
   * corral.yaml key; it is never copied into the resolved config, so never logged.
   * Without it: CORRAL_MASTER_KEY (base64 of 32 bytes) from the environment, else
   * `master.key` (0600) in the data directory, created on first start.
   */
  masterKey?: Buffer;
}

export type ResolvedConfig = Required<Omit<OrchestratorConfig, 'adminKey' | 'publicUrl' | 'masterKey' | 'desktopNotifier'>> & { adminKey?: string; publicUrl?: string };

export const DEFAULT_PORT = 7390;

export function defaultDataDir(): string {
  const xdg = process.env.XDG_DATA_HOME || path.join(os.homedir(), '.local', 'share');
  return path.join(xdg, 'corral');
}

/** Every setting, its environment variable and its corral.yaml key, in one table the README mirrors. */
const SETTINGS: { key: keyof OrchestratorConfig; env: string; yaml: string; type: 'string' | 'number' | 'boolean' }[] = [
  { key: 'port', env: 'CORRAL_PORT', yaml: 'port', type: 'number' },
  { key: 'bind', env: 'CORRAL_BIND', yaml: 'bind', type: 'string' },
  { key: 'http', env: 'CORRAL_HTTP', yaml: 'http', type: 'boolean' },
  { key: 'adminKey', env: 'CORRAL_ADMIN_KEY', yaml: 'admin_key', type: 'string' },
  { key: 'tokenTtlHours', env: 'CORRAL_TOKEN_TTL_HOURS', yaml: 'token_ttl_hours', type: 'number' },
  { key: 'authRateLimit', env: 'CORRAL_AUTH_RATE_LIMIT', yaml: 'auth_rate_limit', type: 'number' },
  { key: 'maxAuthFailures', env: 'CORRAL_MAX_AUTH_FAILURES', yaml: 'max_auth_failures', type: 'number' },
  { key: 'bodyLimit', env: 'CORRAL_BODY_LIMIT', yaml: 'body_limit', type: 'number' },
  { key: 'logLevel', env: 'CORRAL_LOG_LEVEL', yaml: 'log_level', type: 'string' },
  { key: 'heartbeatS', env: 'CORRAL_HEARTBEAT_S', yaml: 'heartbeat_s', type: 'number' },
  { key: 'discoveryPort', env: 'CORRAL_DISCOVERY_PORT', yaml: 'discovery_port', type: 'number' },
  { key: 'discoveryBroadcast', env: 'CORRAL_DISCOVERY_BROADCAST', yaml: 'discovery_broadcast', type: 'boolean' },
  { key: 'publicUrl', env: 'CORRAL_PUBLIC_URL', yaml: 'public_url', type: 'string' },
  { key: 'terminalMaxPerAgent', env: 'CORRAL_TERMINAL_MAX_PER_AGENT', yaml: 'terminal_max_per_agent', type: 'number' },
  { key: 'terminalIdleTimeoutS', env: 'CORRAL_TERMINAL_IDLE_TIMEOUT_S', yaml: 'terminal_idle_timeout_s', type: 'number' },
  { key: 'terminalTranscriptCapBytes', env: 'CORRAL_TERMINAL_TRANSCRIPT_CAP_BYTES', yaml: 'terminal_transcript_cap_bytes', type: 'number' },
  { key: 'terminalRecordInput', env: 'CORRAL_TERMINAL_RECORD_INPUT', yaml: 'terminal_record_input', type: 'boolean' },
  { key: 'driftIntervalS', env: 'CORRAL_DRIFT_INTERVAL_S', yaml: 'drift_interval_s', type: 'number' },
  { key: 'applyConcurrency', env: 'CORRAL_APPLY_CONCURRENCY', yaml: 'apply_concurrency', type: 'number' },
  { key: 'offlineNotifyDelayS', env: 'CORRAL_OFFLINE_NOTIFY_DELAY_S', yaml: 'offline_notify_delay_s', type: 'number' },
  { key: 'deliveryRetryBaseS', env: 'CORRAL_DELIVERY_RETRY_BASE_S', yaml: 'delivery_retry_base_s', type: 'number' },
  { key: 'deliveryRetryCapS', env: 'CORRAL_DELIVERY_RETRY_CAP_S', yaml: 'delivery_retry_cap_s', type: 'number' },
  { key: 'deliveryMaxAttempts', env: 'CORRAL_DELIVERY_MAX_ATTEMPTS', yaml: 'delivery_max_attempts', type: 'number' },
  { key: 'deliveryTimeoutS', env: 'CORRAL_DELIVERY_TIMEOUT_S', yaml: 'delivery_timeout_s', type: 'number' },
  { key: 'notificationRetentionDays', env: 'CORRAL_NOTIFICATION_RETENTION_DAYS', yaml: 'notification_retention_days', type: 'number' },
];

const DEFAULTS: Omit<ResolvedConfig, 'dataDir' | 'uiDir'> = {
  port: DEFAULT_PORT,
  bind: '0.0.0.0',
  http: false,
  tokenTtlHours: 12,
  authRateLimit: 10,
  maxAuthFailures: 10,
  bodyLimit: 1024 * 1024,
  logLevel: 'info',
  banner: false,
  heartbeatS: 10,
  discoveryPort: 7391,
  discoveryBroadcast: true,
  terminalMaxPerAgent: 8,
  terminalIdleTimeoutS: 1800,
  terminalTranscriptCapBytes: 50 * 1024 * 1024,
  terminalRecordInput: false,
  driftIntervalS: 3600,
  applyConcurrency: 10,
  offlineNotifyDelayS: 30,
  deliveryRetryBaseS: 10,
  deliveryRetryCapS: 3600,
  deliveryMaxAttempts: 12,
  deliveryTimeoutS: 10,
  notificationRetentionDays: 90,
};

export class ConfigError extends Error {}

function coerce(value: unknown, type: 'string' | 'number' | 'boolean', where: string): string | number | boolean {
  if (type === 'number') {
    const n = typeof value === 'number' ? value : Number(value);
    if (!Number.isFinite(n) || n < 0) throw new ConfigError(`${where} must be a non-negative number, got ${String(value)}`);
    return n;
  }
  if (type === 'boolean') {
    if (typeof value === 'boolean') return value;
    if (value === '1' || value === 'true') return true;
    if (value === '0' || value === 'false' || value === '') return false;
    throw new ConfigError(`${where} must be true or false, got ${String(value)}`);
  }
  if (typeof value !== 'string' && typeof value !== 'number') throw new ConfigError(`${where} must be a string`);
  return String(value);
}

function fromEnv(env: NodeJS.ProcessEnv): OrchestratorConfig {
  const out: Record<string, unknown> = {};
  for (const s of SETTINGS) if (env[s.env] !== undefined) out[s.key] = coerce(env[s.env], s.type, s.env);
  return out as OrchestratorConfig;
}

function fromYaml(file: string): OrchestratorConfig {
  if (!existsSync(file)) return {};
  const doc = parseYaml(readFileSync(file, 'utf8')) as unknown;
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new ConfigError(`${file}: expected a mapping of settings`);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(doc)) {
    if (k === 'master_key') {
      throw new ConfigError(`${file}: master_key may not be set in corral.yaml; use the ${'CORRAL_MASTER_KEY'} environment variable or the master.key file (see docs/secrets.md)`);
    }
    const s = SETTINGS.find((x) => x.yaml === k);
    if (!s) throw new ConfigError(`${file}: unknown setting "${k}" (known: ${SETTINGS.map((x) => x.yaml).join(', ')})`);
    out[s.key] = coerce(v, s.type, `${file}: ${k}`);
  }
  return out as OrchestratorConfig;
}

function defaultUiDir(): string {
  return path.join(PACKAGE_ROOT, 'dist', 'renderer');
}

/** Merges flags over environment over corral.yaml over defaults, and reads an admin key file. */
/**
 * `embedderDefaults` sit just above the built-in defaults, below corral.yaml: the desktop
 * shell uses them for its loopback address and port, which an admin may still change in
 * corral.yaml (e.g. `bind: 0.0.0.0` so agents on the network can reach the desktop app).
 */
export function resolveConfig(
  flags: OrchestratorConfig = {},
  env: NodeJS.ProcessEnv = process.env,
  embedderDefaults: Pick<OrchestratorConfig, 'bind' | 'port'> = {},
): ResolvedConfig {
  const dataDir = path.resolve(flags.dataDir ?? env.CORRAL_DATA_DIR ?? defaultDataDir());
  const merged = { ...DEFAULTS, ...embedderDefaults, ...fromYaml(path.join(dataDir, 'corral.yaml')), ...fromEnv(env) } as ResolvedConfig;
  // masterKey stays out: the resolved config is handed around and printed; the key is read once in start.ts.
  for (const [k, v] of Object.entries(flags)) if (v !== undefined && k !== 'masterKey' && k !== 'desktopNotifier') (merged as unknown as Record<string, unknown>)[k] = v;
  merged.dataDir = dataDir;
  merged.uiDir = flags.uiDir ?? defaultUiDir();
  if (!Number.isInteger(merged.port) || merged.port > 65535) throw new ConfigError(`port must be 0-65535, got ${merged.port}`);
  if (!Number.isInteger(merged.discoveryPort) || merged.discoveryPort < 1 || merged.discoveryPort > 65535) {
    throw new ConfigError(`discovery_port must be 1-65535, got ${merged.discoveryPort}`);
  }
  if (!(merged.heartbeatS >= 1 && merged.heartbeatS <= 300)) throw new ConfigError(`heartbeat_s must be 1-300, got ${merged.heartbeatS}`);
  if (!Number.isInteger(merged.terminalMaxPerAgent) || merged.terminalMaxPerAgent < 1) {
    throw new ConfigError(`terminal_max_per_agent must be a whole number of at least 1, got ${merged.terminalMaxPerAgent}`);
  }
  if (!Number.isInteger(merged.applyConcurrency) || merged.applyConcurrency < 1) throw new ConfigError(`apply_concurrency must be a whole number of at least 1, got ${merged.applyConcurrency}`);
  if (merged.driftIntervalS !== 0 && merged.driftIntervalS < 60) throw new ConfigError(`drift_interval_s must be 0 (off) or at least 60, got ${merged.driftIntervalS}`);
  if (!Number.isInteger(merged.deliveryMaxAttempts) || merged.deliveryMaxAttempts < 1) throw new ConfigError(`delivery_max_attempts must be a whole number of at least 1, got ${merged.deliveryMaxAttempts}`);
  if (merged.deliveryRetryBaseS <= 0 || merged.deliveryRetryCapS < merged.deliveryRetryBaseS) {
    throw new ConfigError(`delivery_retry_base_s must be above 0 and delivery_retry_cap_s at least as large, got ${merged.deliveryRetryBaseS} and ${merged.deliveryRetryCapS}`);
  }
  if (merged.deliveryTimeoutS <= 0 || merged.deliveryTimeoutS > 300) throw new ConfigError(`delivery_timeout_s must be above 0 and at most 300, got ${merged.deliveryTimeoutS}`);
  if (merged.terminalTranscriptCapBytes < 1024) throw new ConfigError(`terminal_transcript_cap_bytes must be at least 1024, got ${merged.terminalTranscriptCapBytes}`);
  if (merged.adminKey && !merged.adminKey.trim().startsWith('ssh-')) {
    const file = merged.adminKey.replace(/^~(?=$|\/)/, os.homedir());
    if (!existsSync(file)) throw new ConfigError(`admin key file ${file} does not exist`);
    merged.adminKey = readFileSync(file, 'utf8').trim().split('\n')[0]!;
  }
  return merged;
}
