// Channel config as the API takes it in and gives it back: validation with messages that
// name the field, and the split into plain fields and sealed credentials.
import type { TObject, TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { CHANNEL_CONFIG_SCHEMAS, CHANNEL_SECRET_FIELDS, CHANNEL_TYPES, isSetMarker, type ChannelType } from '../../../common/schemas/channels.js';
import type { FieldError } from '../../http/errors.js';
import { isReservedHeader } from './providers/webhook.js';

type Config = Record<string, unknown>;

const isPlainObject = (v: unknown): v is Config => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Fields holding a URL the orchestrator will POST to: checked beyond the schema's "^https?://". */
const URL_FIELDS = new Set(['url', 'webhook_url', 'server_url']);

// The schema's patterns, said in words; keyed by the pattern so a renamed field keeps its message.
const PATTERN_MESSAGES: Record<string, string> = {
  '^https?://': 'must be an http(s) URL',
  '^[^\\s@<>]+@[^\\s@<>]+$': 'must be an email address such as ops@example.com',
  '^[-_A-Za-z0-9]{1,64}$': 'may only contain letters, digits, - and _ (1 to 64 of them)',
};

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
  null: 'null',
};

// When one value breaks several rules (an empty URL: too short and no "http://"), the most telling wins.
const PRIORITY: Record<string, number> = { type: 0, required: 1, additionalProperties: 2, enum: 3, pattern: 4 };

interface SchemaError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message: string;
}

function fieldOf(prefix: string, instancePath: string): string {
  if (instancePath === '') return prefix;
  return instancePath
    .split('/')
    .slice(1)
    .map((seg) => seg.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, seg) => (/^\d+$/.test(seg) ? `${acc}[${seg}]` : `${acc}.${seg}`), prefix);
}

function describe(e: SchemaError): string {
  const p = e.params;
  switch (e.keyword) {
    case 'type':
      return `must be ${TYPE_WORDS[String(p.type)] ?? String(p.type)}`;
    case 'minLength':
      return p.limit === 1 ? 'must not be empty' : `must be at least ${String(p.limit)} characters`;
    case 'maxLength':
      return `must be at most ${String(p.limit)} characters`;
    case 'pattern':
      return PATTERN_MESSAGES[String(p.pattern)] ?? 'is not in the expected format';
    case 'enum':
      return `must be one of: ${(p.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'minimum':
      return `must be at least ${String(p.limit)}`;
    case 'maximum':
      return `must be at most ${String(p.limit)}`;
    case 'minItems':
      return p.limit === 1 ? 'must list at least one' : `must list at least ${String(p.limit)}`;
    case 'maxItems':
      return `must list at most ${String(p.limit)}`;
    default:
      return e.message;
  }
}

/** "config" -> "type", "body.config" -> "body.type": where the channel type sits next to its config. */
const typeField = (prefix: string) => prefix.replace(/[^.]*$/, 'type');

/**
 * Every problem with `config` for a channel of `type`, each naming its field under
 * `fieldPrefix` (e.g. "config.url", "body.config.to[1]"). Empty when the config is good.
 */
export function validateChannelConfig(type: ChannelType, config: unknown, fieldPrefix = 'config'): FieldError[] {
  if (!(CHANNEL_TYPES as readonly string[]).includes(type)) {
    return [{ field: typeField(fieldPrefix), message: `must be one of: ${CHANNEL_TYPES.join(', ')}` }];
  }
  if (!isPlainObject(config)) return [{ field: fieldPrefix, message: 'must be an object' }];
  const schema = CHANNEL_CONFIG_SCHEMAS[type] as TObject;
  const known = Object.keys(schema.properties);

  const found = new Map<string, { rank: number; message: string }>();
  const add = (field: string, message: string, rank = 9) => {
    const prev = found.get(field);
    if (!prev || rank < prev.rank) found.set(field, { rank, message });
  };

  for (const key of Object.keys(config)) {
    if (!known.includes(key)) {
      const fields = known.length ? ` (its fields: ${known.join(', ')})` : ' (it has no settings)';
      add(`${fieldPrefix}.${key}`, `is not a field of ${type === 'email' ? 'an' : 'a'} ${type} channel${fields}`, 2);
    }
  }
  for (const e of Value.Errors(schema as TSchema, config) as unknown as SchemaError[]) {
    // Unknown fields are reported above, once each and with the list of known ones.
    if (e.keyword === 'additionalProperties' || e.keyword === 'boolean') continue;
    if (e.keyword === 'required') {
      for (const name of (e.params.requiredProperties as string[] | undefined) ?? []) add(fieldOf(fieldPrefix, `${e.instancePath}/${name}`), 'is required', 1);
      continue;
    }
    add(fieldOf(fieldPrefix, e.instancePath), describe(e), PRIORITY[e.keyword] ?? 9);
  }
  for (const [field, message] of extraChecks(type, config, fieldPrefix)) if (!found.has(field)) add(field, message);

  return [...found].map(([field, { message }]) => ({ field, message }));
}

/** What the schema cannot say: a URL that really parses, header names, an SMTP host. */
function extraChecks(type: ChannelType, config: Config, prefix: string): [string, string][] {
  const out: [string, string][] = [];
  for (const name of URL_FIELDS) {
    const value = config[name];
    if (typeof value !== 'string' || !(name in (CHANNEL_CONFIG_SCHEMAS[type] as TObject).properties)) continue;
    const problem = urlProblem(value);
    if (problem) out.push([`${prefix}.${name}`, problem]);
  }
  if (type === 'webhook' && isPlainObject(config.headers)) {
    for (const [name, value] of Object.entries(config.headers)) {
      const field = `${prefix}.headers.${name}`;
      if (!/^[A-Za-z0-9-]{1,64}$/.test(name)) out.push([field, 'is not a valid header name (letters, digits and -, at most 64)']);
      else if (isReservedHeader(name)) out.push([field, 'is set by Corral itself and cannot be replaced']);
      else if (typeof value === 'string' && /[\r\n\0]/.test(value)) out.push([field, 'must not contain line breaks']);
    }
  }
  if (type === 'email') {
    // A scheme or a port in the host field is the usual slip ("smtp://mail.example.com:587").
    if (typeof config.host === 'string' && config.host !== '' && !/^(?:[A-Za-z0-9_](?:[A-Za-z0-9_-]*[A-Za-z0-9_])?\.?)+$|^\[?[0-9A-Fa-f:.]+\]?$/.test(config.host)) {
      out.push([`${prefix}.host`, 'must be a host name or IP address such as smtp.example.com (no scheme, no port)']);
    }
    // Without a user name no login is attempted, so a password alone would be silently ignored.
    if (typeof config.password === 'string' && config.password !== '' && !config.username) out.push([`${prefix}.username`, 'is required when a password is set']);
  }
  return out;
}

function urlProblem(value: string): string | null {
  if (/\s/.test(value)) return 'must not contain spaces or line breaks';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an http(s) URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http(s) URL';
  if (url.hostname === '') return 'must name a host';
  return null;
}

const secretFields = (type: ChannelType): readonly string[] => CHANNEL_SECRET_FIELDS[type] ?? [];

/** Splits a full config into what is stored in clear and the credentials that are sealed. */
export function splitConfig(type: ChannelType, config: Config): { plain: Config; secret: Config } {
  const secrets = secretFields(type);
  const plain: Config = {};
  const secret: Config = {};
  for (const [key, value] of Object.entries(config)) {
    if (value === undefined) continue;
    if (secrets.includes(key)) {
      if (value !== null) secret[key] = value;
    } else plain[key] = value;
  }
  return { plain, secret };
}


/**
 * The config a PUT asks for. Plain fields come wholesale from `incoming`; a credential left
 * out or sent as {"set": true} keeps the stored value, null clears it, anything else replaces
 * it. `stored` must be of the same type (pass empty credentials when the type changes, so a
 * Slack URL never becomes a Discord one).
 */
export function mergeForUpdate(type: ChannelType, stored: { plain: Config; secret: Config }, incoming: Config): Config {
  const secrets = secretFields(type);
  const out: Config = {};
  for (const [key, value] of Object.entries(incoming)) if (!secrets.includes(key) && value !== undefined) out[key] = value;
  for (const key of secrets) {
    const value = incoming[key];
    if (value === undefined || isSetMarker(value)) {
      if (stored.secret[key] !== undefined && stored.secret[key] !== null) out[key] = stored.secret[key];
    } else if (value !== null) out[key] = value;
  }
  return out;
}

/** The config as the API returns it: plain fields, and {"set": true} for each credential that has a value. */
export function publicConfig(type: ChannelType, plain: Config, secret: Config): Config {
  const secrets = secretFields(type);
  const out: Config = {};
  // A credential that somehow sits among the plain fields is still never returned.
  for (const [key, value] of Object.entries(plain)) if (!secrets.includes(key)) out[key] = value;
  for (const key of secrets) if (secret[key] !== undefined && secret[key] !== null) out[key] = { set: true };
  return out;
}
