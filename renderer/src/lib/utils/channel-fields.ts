// The channel form's fields, read from the config schemas the orchestrator validates
// with (common/schemas/channels.ts), so a new provider field shows up without a form change.
import { CHANNEL_CONFIG_SCHEMAS, CHANNEL_SECRET_FIELDS, isSetMarker, type ChannelType } from '../../../../common/schemas/channels.js';

export type FieldKind = 'text' | 'url' | 'integer' | 'boolean' | 'choice' | 'list' | 'headers';

export interface ConfigField {
  key: string;
  label: string;
  kind: FieldKind;
  required: boolean;
  /** Sealed on the server, read back as {set: true}. */
  credential: boolean;
  hint?: string;
  choices?: readonly string[];
  pattern?: string;
}

interface JsonSchemaLike {
  type?: string;
  enum?: readonly string[];
  pattern?: string;
  description?: string;
  properties?: Record<string, JsonSchemaLike>;
  required?: readonly string[];
  patternProperties?: Record<string, JsonSchemaLike>;
  items?: JsonSchemaLike;
}

const LABELS: Record<string, string> = {
  url: 'URL',
  webhook_url: 'Webhook URL',
  server_url: 'Server URL',
  host: 'SMTP host',
  to: 'To',
  from: 'From',
  allow_invalid_certificate: 'Accept an invalid certificate',
};

function labelFor(key: string): string {
  return LABELS[key] ?? key.charAt(0).toUpperCase() + key.slice(1).replace(/_/g, ' ');
}

export function configFields(type: ChannelType): ConfigField[] {
  const schema = CHANNEL_CONFIG_SCHEMAS[type] as unknown as JsonSchemaLike;
  const required = new Set(schema.required ?? []);
  const secrets = CHANNEL_SECRET_FIELDS[type];
  return Object.entries(schema.properties ?? {}).map(([key, s]) => {
    const kind: FieldKind = s.enum
      ? 'choice'
      : s.type === 'integer'
        ? 'integer'
        : s.type === 'boolean'
          ? 'boolean'
          : s.type === 'array'
            ? 'list'
            : s.type === 'object' || s.patternProperties
              ? 'headers'
              : s.pattern === '^https?://'
                ? 'url'
                : 'text';
    const hint = s.description
      ?.replace(/\s*\(credential\)$/, '')
      .replace(/^credential$/, '')
      .trim();
    return {
      key,
      label: labelFor(key),
      kind,
      required: required.has(key),
      credential: secrets.includes(key),
      hint: hint || undefined,
      choices: s.enum,
      pattern: s.pattern,
    };
  });
}

/** What the form holds per field: text for inputs and textareas, a flag for checkboxes. */
export type FieldValues = Record<string, string | boolean>;


/** The form's starting values from a stored config (credentials start empty). */
export function valuesFrom(fields: ConfigField[], config: Record<string, unknown> = {}): FieldValues {
  const values: FieldValues = {};
  for (const f of fields) {
    const v = config[f.key];
    if (f.kind === 'boolean') values[f.key] = v === true;
    else if (f.credential || v === undefined || v === null || isSetMarker(v)) values[f.key] = f.kind === 'choice' ? (f.choices?.[0] ?? '') : '';
    else if (f.kind === 'list') values[f.key] = Array.isArray(v) ? v.join('\n') : String(v);
    else if (f.kind === 'headers') values[f.key] = Object.entries(v as Record<string, string>).map(([k, x]) => `${k}: ${x}`).join('\n');
    else values[f.key] = String(v);
  }
  return values;
}

export interface BuiltConfig {
  config: Record<string, unknown>;
  /** Problems found in the browser, by field key. */
  problems: Record<string, string>;
}

/**
 * The config to send. On create every filled field goes; on update (`stored` given) a
 * credential left empty is left out (the server keeps it) unless `clear` names it (null).
 */
export function buildConfig(fields: ConfigField[], values: FieldValues, stored?: Record<string, unknown>, clear: ReadonlySet<string> = new Set()): BuiltConfig {
  const config: Record<string, unknown> = {};
  const problems: Record<string, string> = {};
  for (const f of fields) {
    const raw = values[f.key];
    if (f.kind === 'boolean') {
      if (raw === true || f.required) config[f.key] = raw === true;
      continue;
    }
    const text = typeof raw === 'string' ? raw.trim() : '';
    const wasSet = stored !== undefined && isSetMarker(stored[f.key]);
    if (!text) {
      if (f.credential && clear.has(f.key)) config[f.key] = null;
      else if (f.required && !(f.credential && wasSet)) problems[f.key] = 'required';
      continue;
    }
    if (f.kind === 'integer') {
      if (!/^\d+$/.test(text)) problems[f.key] = 'a whole number';
      else config[f.key] = Number(text);
    } else if (f.kind === 'list') {
      config[f.key] = text.split(/[\s,;]+/).filter(Boolean);
    } else if (f.kind === 'headers') {
      const headers: Record<string, string> = {};
      for (const [i, line] of text.split('\n').entries()) {
        if (!line.trim()) continue;
        const colon = line.indexOf(':');
        if (colon <= 0) {
          problems[f.key] = `line ${i + 1}: write "Name: value"`;
          break;
        }
        headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
      }
      config[f.key] = headers;
    } else if (f.kind === 'url' && !/^https?:\/\//.test(text)) {
      problems[f.key] = 'starts with http:// or https://';
    } else {
      config[f.key] = text;
    }
  }
  return { config, problems };
}
