// Notification channels: where events go besides the in-app inbox. One config schema
// per channel type (the orchestrator validates with these, the renderer builds its
// forms from them), and which config fields are credentials (sealed, never returned).
import { Type, type Static, type TSchema } from 'typebox';
import { EventKind, Severity } from './events.js';
import { Timestamp } from './shared.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const CHANNEL_TYPES = ['webhook', 'slack', 'discord', 'ntfy', 'email', 'desktop'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];
export const ChannelType = Type.Enum(CHANNEL_TYPES);

const HttpUrl = (description: string) => Type.String({ minLength: 8, maxLength: 2048, pattern: '^https?://', description });
const Email = Type.String({ minLength: 3, maxLength: 254, pattern: '^[^\\s@<>]+@[^\\s@<>]+$' });

export const WebhookConfig = Type.Object(
  {
    url: HttpUrl('Where the JSON is POSTed'),
    secret: Type.Optional(Type.String({ minLength: 16, maxLength: 512, description: 'HMAC-SHA256 key: signs "<timestamp>.<body>" into X-Corral-Signature (credential)' })),
    headers: Type.Optional(Type.Record(Type.String({ pattern: '^[A-Za-z0-9-]{1,64}$' }), Type.String({ maxLength: 2048 }), { description: 'Extra request headers, e.g. Authorization (credential)' })),
  },
  { additionalProperties: false },
);
export type WebhookConfig = Static<typeof WebhookConfig>;

export const SlackConfig = Type.Object(
  {
    webhook_url: HttpUrl('Slack incoming-webhook URL (credential)'),
    channel: Type.Optional(Type.String({ maxLength: 80, description: 'Override the webhook\'s channel, e.g. #ops' })),
    username: Type.Optional(Type.String({ maxLength: 80 })),
  },
  { additionalProperties: false },
);
export type SlackConfig = Static<typeof SlackConfig>;

export const DiscordConfig = Type.Object(
  {
    webhook_url: HttpUrl('Discord webhook URL (credential)'),
    username: Type.Optional(Type.String({ maxLength: 80 })),
  },
  { additionalProperties: false },
);
export type DiscordConfig = Static<typeof DiscordConfig>;

export const NtfyConfig = Type.Object(
  {
    server_url: Type.Optional(HttpUrl('ntfy server (default https://ntfy.sh)')),
    topic: Type.String({ pattern: '^[-_A-Za-z0-9]{1,64}$', description: 'Topic name' }),
    token: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'Access token for a protected topic (credential)' })),
  },
  { additionalProperties: false },
);
export type NtfyConfig = Static<typeof NtfyConfig>;

export const EMAIL_SECURITY = ['starttls', 'tls', 'none'] as const;
export const EmailConfig = Type.Object(
  {
    host: Type.String({ minLength: 1, maxLength: 253, description: 'SMTP server' }),
    port: Type.Integer({ minimum: 1, maximum: 65535, description: '587 for STARTTLS, 465 for TLS, 25 for none' }),
    security: Type.Enum(EMAIL_SECURITY, { description: 'starttls: upgrade a plain connection (required); tls: TLS from the first byte; none: plain (local relays only)' }),
    username: Type.Optional(Type.String({ maxLength: 254 })),
    password: Type.Optional(Type.String({ maxLength: 512, description: 'credential' })),
    from: Email,
    to: Type.Array(Email, { minItems: 1, maxItems: 20 }),
    allow_invalid_certificate: Type.Optional(Type.Boolean({ description: 'Accept a self-signed or mismatched server certificate (default false)' })),
  },
  { additionalProperties: false },
);
export type EmailConfig = Static<typeof EmailConfig>;

export const DesktopConfig = Type.Object({}, { additionalProperties: false, description: 'No settings: the desktop app shows a native notification; browsers with Corral open show one with the Notification API' });
export type DesktopConfig = Static<typeof DesktopConfig>;

export interface ChannelConfigByType {
  webhook: WebhookConfig;
  slack: SlackConfig;
  discord: DiscordConfig;
  ntfy: NtfyConfig;
  email: EmailConfig;
  desktop: DesktopConfig;
}

export const CHANNEL_CONFIG_SCHEMAS: Record<ChannelType, TSchema> = {
  webhook: WebhookConfig,
  slack: SlackConfig,
  discord: DiscordConfig,
  ntfy: NtfyConfig,
  email: EmailConfig,
  desktop: DesktopConfig,
};

/** Config fields that are credentials: sealed like secrets, read back as {set: true}. */
export const CHANNEL_SECRET_FIELDS: Record<ChannelType, readonly string[]> = {
  webhook: ['secret', 'headers'],
  slack: ['webhook_url'],
  discord: ['webhook_url'],
  ntfy: ['token'],
  email: ['password'],
  desktop: [],
};

/** How a credential reads back; sending it (or leaving the field out) on PUT keeps the stored value. */
export const SetMarker = Type.Object({ set: Type.Literal(true) }, { additionalProperties: false });
export type SetMarker = Static<typeof SetMarker>;

/** True for exactly {"set": true}: how a stored credential reads back, and how a PUT says "keep it". */
export function isSetMarker(value: unknown): value is SetMarker {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && (value as { set?: unknown }).set === true && Object.keys(value).length === 1;
}

export const ChannelId = Type.String({ format: 'uuid' });
export const ChannelName = Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' });

/** Placeholders a message template may use: {{ title }}, {{ node_id }}, ... */
export const TEMPLATE_FIELDS = ['kind', 'severity', 'title', 'body', 'node_id', 'operation_id', 'time', 'link', 'channel'] as const;
export type TemplateField = (typeof TEMPLATE_FIELDS)[number];

const channelFields = {
  name: ChannelName,
  events: Type.Optional(Type.Array(EventKind, { maxItems: 32, description: 'Event kinds this channel gets; empty or absent: all' })),
  min_severity: Type.Optional(Type.Enum(['info', 'warning', 'critical'] as const, { description: 'Lowest severity sent (default info)' })),
  enabled: Type.Optional(Type.Boolean({ description: 'Default true' })),
  template: Type.Optional(
    Nullable(Type.String({ maxLength: 4000, description: `Message text with placeholders {{ ${TEMPLATE_FIELDS.join(' }}, {{ ')} }}; null: the default text` })),
  ),
  batch_seconds: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 3600, description: 'Collect events for this long after the first and send them as one message (0, the default: send each at once; a backlog is still sent as one)' }),
  ),
};

const ConfigIn = Type.Record(Type.String(), Type.Unknown(), {
  description:
    'Per type (fields marked credential are sealed and read back as {"set": true}; on PUT, leave one out or send {"set": true} to keep it, null to clear it): ' +
    'webhook {url, secret?, headers?}; slack {webhook_url, channel?, username?}; discord {webhook_url, username?}; ntfy {topic, server_url?, token?}; ' +
    'email {host, port, security: starttls|tls|none, username?, password?, from, to: [..], allow_invalid_certificate?}; desktop {}',
});

export const ChannelCreate = Type.Object({ ...channelFields, type: ChannelType, config: ConfigIn }, { additionalProperties: false });
export type ChannelCreate = Static<typeof ChannelCreate>;

export const ChannelUpdate = Type.Object(
  {
    ...channelFields,
    name: Type.Optional(ChannelName),
    type: Type.Optional(ChannelType),
    config: Type.Optional(ConfigIn),
  },
  { additionalProperties: false, description: 'Fields left out keep their values' },
);
export type ChannelUpdate = Static<typeof ChannelUpdate>;

export const DeliveryHealth = Type.Object({
  last_success_at: Nullable(Timestamp),
  last_error_at: Nullable(Timestamp),
  last_error: Nullable(Type.String()),
  pending: Type.Integer({ minimum: 0, description: 'Deliveries waiting (first try or a retry)' }),
  failed: Type.Integer({ minimum: 0, description: 'Deliveries that gave up after the last retry' }),
});
export type DeliveryHealth = Static<typeof DeliveryHealth>;

export const Channel = Type.Object({
  id: ChannelId,
  name: Type.String(),
  type: ChannelType,
  config: Type.Record(Type.String(), Type.Unknown(), { description: 'Credentials read back as {"set": true}' }),
  events: Type.Array(EventKind, { description: 'Empty: all kinds' }),
  min_severity: Severity,
  enabled: Type.Boolean(),
  template: Nullable(Type.String()),
  batch_seconds: Type.Integer({ minimum: 0 }),
  created_at: Timestamp,
  created_by: Type.String(),
  updated_at: Timestamp,
  updated_by: Type.String(),
  delivery: DeliveryHealth,
});
export type Channel = Static<typeof Channel>;

export const ChannelParams = Type.Object({ id: ChannelId });

/** What one send attempt came to: the receiver's answer or the error. */
export const SendOutcome = Type.Object({
  ok: Type.Boolean(),
  detail: Type.String({ description: 'e.g. "HTTP 204", "250 2.0.0 Ok: queued as 1A2B", "shown in 2 browser windows", or the error' }),
  status_code: Nullable(Type.Integer({ description: 'HTTP status or SMTP reply code when there was an answer' })),
  duration_ms: Type.Integer({ minimum: 0 }),
});
export type SendOutcome = Static<typeof SendOutcome>;

export const DELIVERY_KINDS = ['event', 'digest', 'test'] as const;
export type DeliveryKind = (typeof DELIVERY_KINDS)[number];
export const DELIVERY_STATUSES = ['pending', 'sending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const Delivery = Type.Object({
  id: Type.Integer(),
  channel_id: ChannelId,
  kind: Type.Enum(DELIVERY_KINDS, { description: 'event: one or more events (a batch); digest: what a maintenance window held back; test: POST /channels/{id}/test' }),
  event_ids: Type.Array(Type.String()),
  title: Type.String(),
  status: Type.Enum(DELIVERY_STATUSES),
  attempts: Type.Integer({ minimum: 0 }),
  next_attempt_at: Nullable(Timestamp),
  last_error: Nullable(Type.String()),
  response: Nullable(Type.String({ description: 'The receiver\'s answer to the last attempt, e.g. "HTTP 200"' })),
  created_at: Timestamp,
  delivered_at: Nullable(Timestamp),
});
export type Delivery = Static<typeof Delivery>;

export const DeliveryQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
    status: Type.Optional(Type.Enum(DELIVERY_STATUSES)),
  },
  { additionalProperties: false },
);
export type DeliveryQuery = Static<typeof DeliveryQuery>;
