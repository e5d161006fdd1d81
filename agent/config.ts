// The agent's settings. Precedence: command-line flags > CORRAL_AGENT_* environment >
// the YAML config file (default <state-dir>/agent.yaml) > defaults, the same order the
// orchestrator uses. Every source is checked, not only the winning one, so a typo in the
// file is reported even while a flag happens to override it.
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { DISCOVERY_PORT, NODE_ID_PATTERN, nodeIdFromHostname } from '../common/protocol.js';
import { normaliseOrchestratorUrl, parseCertFingerprint } from './link/url.js';
import { LOG_LEVELS, type LogLevel } from './logger.js';
import { defaultStateDir } from './state-dir.js';

export class ConfigError extends Error {}

/** What the command line gives: strings as typed, checked here. */
export interface AgentFlags {
  orchestrator?: string;
  fingerprint?: string;
  nodeId?: string;
  stateDir?: string;
  metricsInterval?: string;
  discoveryPort?: string;
  logLevel?: string;
  config?: string;
}

export interface AgentConfig {
  /** Normalised base URL, or null: then the agent waits to hear one through discovery. */
  orchestrator: string | null;
  /** Colon hex SHA-256 of the orchestrator's certificate; required for https. */
  fingerprint: string | null;
  nodeId: string;
  stateDir: string;
  metricsIntervalS: number;
  /** UDP port of the discovery listener; null when disabled (0 on the command line). */
  discoveryPort: number | null;
  logLevel: LogLevel;
  /** The config file that was read, if any. */
  configFile: string | null;
  /** Things worth a log line at start that are not errors. */
  warnings: string[];
}

type Key = 'orchestrator' | 'fingerprint' | 'nodeId' | 'metricsInterval' | 'discoveryPort' | 'logLevel';
type Value = string | number;

interface Setting {
  key: Key;
  flag: string;
  env: string;
  yaml: string;
  parse(value: string, where: string): Value;
}

function fail(where: string, message: string): never {
  throw new ConfigError(`${where}: ${message}`);
}

function number(value: string, where: string, min: number, max: number, integer: boolean): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n))) {
    fail(where, `must be ${integer ? 'a whole number' : 'a number'} from ${min} to ${max}, got "${value}"`);
  }
  return n;
}

/** Every setting with its flag, environment variable and file key; docs/agent.md mirrors this table. */
export const SETTINGS: Setting[] = [
  {
    key: 'orchestrator',
    flag: '--orchestrator',
    env: 'CORRAL_AGENT_ORCHESTRATOR',
    yaml: 'orchestrator',
    parse: (v, where) => {
      try {
        return normaliseOrchestratorUrl(v);
      } catch (err) {
        return fail(where, (err as Error).message);
      }
    },
  },
  {
    key: 'fingerprint',
    flag: '--fingerprint',
    env: 'CORRAL_AGENT_FINGERPRINT',
    yaml: 'fingerprint',
    parse: (v, where) => {
      try {
        return parseCertFingerprint(v);
      } catch (err) {
        return fail(where, (err as Error).message);
      }
    },
  },
  {
    key: 'nodeId',
    flag: '--node-id',
    env: 'CORRAL_AGENT_NODE_ID',
    yaml: 'node_id',
    parse: (v, where) => (NODE_ID_PATTERN.test(v) ? v : fail(where, `"${v}" is not a node id (lower-case letters, digits, ".", "_", "-"; up to 63; starting with a letter or digit)`)),
  },
  {
    key: 'metricsInterval',
    flag: '--metrics-interval',
    env: 'CORRAL_AGENT_METRICS_INTERVAL',
    yaml: 'metrics_interval',
    parse: (v, where) => number(v, where, 1, 3600, false),
  },
  {
    key: 'discoveryPort',
    flag: '--discovery-port',
    env: 'CORRAL_AGENT_DISCOVERY_PORT',
    yaml: 'discovery_port',
    parse: (v, where) => number(v, where, 0, 65535, true),
  },
  {
    key: 'logLevel',
    flag: '--log-level',
    env: 'CORRAL_AGENT_LOG_LEVEL',
    yaml: 'log_level',
    parse: (v, where) => ((LOG_LEVELS as readonly string[]).includes(v) ? v : fail(where, `must be one of ${LOG_LEVELS.join(', ')}, got "${v}"`)),
  },
];

type Values = Partial<Record<Key, Value>>;

function fromFlags(flags: AgentFlags): Values {
  const out: Values = {};
  for (const s of SETTINGS) {
    const v = flags[s.key];
    if (v !== undefined) out[s.key] = s.parse(v, s.flag);
  }
  return out;
}

function fromEnv(env: NodeJS.ProcessEnv): Values {
  const out: Values = {};
  for (const s of SETTINGS) {
    const v = env[s.env];
    if (v !== undefined && v !== '') out[s.key] = s.parse(v, s.env);
  }
  return out;
}

function fromFile(file: string): Values {
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(`${file}: ${(err as Error).message.split('\n')[0]}`);
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new ConfigError(`${file}: expected a mapping of settings (key: value)`);
  const out: Values = {};
  for (const [k, v] of Object.entries(doc as Record<string, unknown>)) {
    const s = SETTINGS.find((x) => x.yaml === k);
    if (!s) throw new ConfigError(`${file}: unknown setting "${k}" (known: ${SETTINGS.map((x) => x.yaml).join(', ')})`);
    if (v === null || v === undefined) continue;
    if (typeof v !== 'string' && typeof v !== 'number') throw new ConfigError(`${file}: ${k} must be a single value`);
    out[s.key] = s.parse(String(v), `${file}: ${k}`);
  }
  return out;
}

export interface ResolveOptions {
  env?: NodeJS.ProcessEnv;
  hostname?: string;
  isRoot?: boolean;
}

/** Merges flags over environment over the config file over defaults, and checks the result as a whole. */
export function resolveAgentConfig(flags: AgentFlags = {}, options: ResolveOptions = {}): AgentConfig {
  const env = options.env ?? process.env;
  const stateDir = path.resolve(flags.stateDir ?? (env.CORRAL_AGENT_STATE_DIR || defaultStateDir(env, options.isRoot)));
  // An explicitly named config file must exist; the default one is optional.
  const explicitFile = flags.config ?? (env.CORRAL_AGENT_CONFIG || undefined);
  const configFile = path.resolve(explicitFile ?? path.join(stateDir, 'agent.yaml'));
  if (explicitFile && !existsSync(configFile)) throw new ConfigError(`config file ${configFile} does not exist`);
  const fileValues = existsSync(configFile) ? fromFile(configFile) : {};
  const merged: Values = { ...fileValues, ...fromEnv(env), ...fromFlags(flags) };

  const warnings: string[] = [];
  const orchestrator = (merged.orchestrator as string | undefined) ?? null;
  let fingerprint = (merged.fingerprint as string | undefined) ?? null;
  if (orchestrator?.startsWith('https:') && !fingerprint) {
    throw new ConfigError(
      `${orchestrator} is https, so the agent needs the orchestrator's certificate fingerprint to pin (--fingerprint, CORRAL_AGENT_FINGERPRINT or fingerprint: in the config file); \`corral serve\` prints it at start`,
    );
  }
  if (orchestrator?.startsWith('http:') && fingerprint) {
    warnings.push(`the fingerprint is ignored: ${orchestrator} is plain http, there is no certificate to pin`);
    fingerprint = null;
  }
  if (!orchestrator && fingerprint) warnings.push('a fingerprint is set but no orchestrator; it is ignored until one is configured');

  const port = (merged.discoveryPort as number | undefined) ?? DISCOVERY_PORT;
  return {
    orchestrator,
    fingerprint: orchestrator ? fingerprint : null,
    nodeId: (merged.nodeId as string | undefined) ?? nodeIdFromHostname(options.hostname ?? os.hostname()),
    stateDir,
    metricsIntervalS: (merged.metricsInterval as number | undefined) ?? 10,
    discoveryPort: port === 0 ? null : port,
    logLevel: ((merged.logLevel as string | undefined) ?? 'info') as LogLevel,
    configFile: existsSync(configFile) ? configFile : null,
    warnings,
  };
}
