import { randomUUID } from 'node:crypto';
import type { Channel, ChannelCreate, ChannelType, ChannelUpdate, Delivery, DeliveryQuery } from '../../common/schemas/channels.js';
import type { EventKind, FleetEvent, Severity } from '../../common/schemas/events.js';
import { severityAtLeast } from '../../common/schemas/events.js';
import type { List } from '../../common/schemas/shared.js';
import { BadRequest, Conflict, NotFound, type FieldError } from '../http/errors.js';
import type { ChannelRow, ChannelsRepository, DeliveryRow } from '../repositories/channels.js';
import { mergeForUpdate, publicConfig, splitConfig, validateChannelConfig } from './channels/channel-config.js';
import { checkTemplate } from './channels/message-template.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import type { SecretBox } from './secret-box.js';

/** A channel as the queue needs it: its rules, and its config with credentials opened. */
export interface LoadedChannel {
  id: string;
  name: string;
  type: ChannelType;
  events: EventKind[];
  min_severity: Severity;
  enabled: boolean;
  template: string | null;
  batch_seconds: number;
}

export function channelAccepts(channel: Pick<LoadedChannel, 'enabled' | 'events' | 'min_severity'>, event: Pick<FleetEvent, 'kind' | 'severity'>): boolean {
  return channel.enabled && (channel.events.length === 0 || channel.events.includes(event.kind)) && severityAtLeast(event.severity, channel.min_severity);
}

function sealName(channelId: string): string {
  // Bound into the ciphertext (AAD): a sealed config copied onto another channel does not open.
  return `channel:${channelId}`;
}

export function toDelivery(row: DeliveryRow): Delivery {
  return {
    id: row.id,
    channel_id: row.channel_id,
    kind: row.kind,
    event_ids: JSON.parse(row.event_ids) as string[],
    title: row.title,
    status: row.status,
    attempts: row.attempts,
    next_attempt_at: row.status === 'pending' ? row.next_attempt_at : null,
    last_error: row.last_error,
    response: row.response,
    created_at: row.created_at,
    delivered_at: row.delivered_at,
  };
}

/** Notification channels: validated per type, credentials sealed with the master key and never returned. */
export class ChannelsService {
  constructor(
    private readonly repo: ChannelsRepository,
    private readonly box: SecretBox,
  ) {}

  list(q: { limit?: number; cursor?: string }): List<Channel> {
    const limit = q.limit ?? 100;
    const after = q.cursor === undefined ? '' : String(decodeCursor(q.cursor, 'name'));
    const rows = this.repo.page(after, limit + 1);
    const page = rows.slice(0, limit);
    return { items: page.map((r) => this.toChannel(r)), next_cursor: rows.length > limit ? encodeCursor({ name: page[page.length - 1]!.name }) : null };
  }

  get(id: string): Channel {
    return this.toChannel(this.require(id));
  }

  create(req: ChannelCreate, actor: string): Channel {
    this.check(req.type, req.config, req.template);
    if (this.repo.byName(req.name.trim())) throw new Conflict(`a channel named ${req.name.trim()} exists`, 'channel-exists');
    const now = new Date().toISOString();
    const id = randomUUID();
    const { plain, secret } = splitConfig(req.type, req.config);
    this.repo.insert({
      id,
      name: req.name.trim(),
      type: req.type,
      config: JSON.stringify(plain),
      sealed_config: this.seal(id, secret),
      events: JSON.stringify([...new Set(req.events ?? [])]),
      min_severity: req.min_severity ?? 'info',
      enabled: req.enabled === false ? 0 : 1,
      template: req.template ?? null,
      batch_seconds: req.batch_seconds ?? 0,
      created_at: now,
      created_by: actor,
      updated_at: now,
      updated_by: actor,
    });
    return this.get(id);
  }

  /**
   * Changes what is given. With `config`, its plain fields replace the stored ones; a
   * credential left out or sent as {"set": true} keeps its value, null clears it. A new
   * `type` needs a whole config for that type.
   */
  update(id: string, req: ChannelUpdate, actor: string): Channel {
    const row = this.require(id);
    const type = (req.type ?? row.type) as ChannelType;
    if (type !== row.type && req.config === undefined) {
      throw new BadRequest('changing the type needs a config for the new type', [{ field: 'body.config', message: `is required when type changes to ${type}` }], 'validation-failed');
    }
    let plain = JSON.parse(row.config) as Record<string, unknown>;
    let secret = this.open(row);
    if (req.config !== undefined) {
      const merged = mergeForUpdate(type, { plain, secret: type === row.type ? secret : {} }, req.config);
      this.check(type, merged, req.template);
      ({ plain, secret } = splitConfig(type, merged));
    } else if (req.template !== undefined) this.check(type, { ...plain, ...secret }, req.template);
    const name = req.name?.trim() ?? row.name;
    const clash = this.repo.byName(name);
    if (clash && clash.id !== id) throw new Conflict(`a channel named ${name} exists`, 'channel-exists');
    this.repo.update({
      ...row,
      name,
      type,
      config: JSON.stringify(plain),
      sealed_config: this.seal(id, secret),
      events: req.events !== undefined ? JSON.stringify([...new Set(req.events)]) : row.events,
      min_severity: req.min_severity ?? row.min_severity,
      enabled: req.enabled === undefined ? row.enabled : req.enabled ? 1 : 0,
      template: req.template !== undefined ? req.template : row.template,
      batch_seconds: req.batch_seconds ?? row.batch_seconds,
      updated_at: new Date().toISOString(),
      updated_by: actor,
    });
    return this.get(id);
  }

  /** Its queued deliveries go with it (ON DELETE CASCADE). */
  remove(id: string): Channel {
    const channel = this.get(id);
    this.repo.delete(id);
    return channel;
  }

  deliveries(id: string, q: DeliveryQuery): List<Delivery> {
    this.require(id);
    const limit = q.limit ?? 100;
    const beforeId = q.cursor === undefined ? undefined : Number(decodeCursor(q.cursor, 'id'));
    const rows = this.repo.deliveries(id, { status: q.status, beforeId, limit: limit + 1 });
    const page = rows.slice(0, limit);
    return { items: page.map(toDelivery), next_cursor: rows.length > limit ? encodeCursor({ id: page[page.length - 1]!.id }) : null };
  }

  /** Every channel with its rules, for the queue's filtering. */
  loadAll(): LoadedChannel[] {
    return this.repo.all().map((r) => this.loaded(r));
  }

  load(id: string): LoadedChannel | undefined {
    const row = this.repo.get(id);
    return row ? this.loaded(row) : undefined;
  }

  /** The full config, credentials opened: only for a send. */
  sendConfig(id: string): Record<string, unknown> | undefined {
    const row = this.repo.get(id);
    return row ? { ...(JSON.parse(row.config) as Record<string, unknown>), ...this.open(row) } : undefined;
  }

  require(id: string): ChannelRow {
    const row = this.repo.get(id);
    if (!row) throw new NotFound(`channel ${id} does not exist`, 'channel-not-found');
    return row;
  }

  private loaded(row: ChannelRow): LoadedChannel {
    return {
      id: row.id,
      name: row.name,
      type: row.type as ChannelType,
      events: JSON.parse(row.events) as EventKind[],
      min_severity: row.min_severity as Severity,
      enabled: row.enabled === 1,
      template: row.template,
      batch_seconds: row.batch_seconds,
    };
  }

  private check(type: ChannelType, config: Record<string, unknown>, template: string | null | undefined): void {
    const errors: FieldError[] = validateChannelConfig(type, config, 'body.config');
    if (template) errors.push(...checkTemplate(template).map((e) => ({ ...e, field: `body.${e.field}` })));
    if (errors.length) throw new BadRequest(errors.map((e) => `${e.field}: ${e.message}`).join('; '), errors, 'validation-failed');
  }

  private seal(id: string, secret: Record<string, unknown>): Buffer | null {
    return Object.keys(secret).length ? this.box.seal(sealName(id), JSON.stringify(secret)) : null;
  }

  private open(row: ChannelRow): Record<string, unknown> {
    return row.sealed_config ? (JSON.parse(this.box.open(sealName(row.id), row.sealed_config)) as Record<string, unknown>) : {};
  }

  /** A wrong master key must not make the channel list fail: its credentials then read as unset. */
  private openForDisplay(row: ChannelRow): Record<string, unknown> {
    try {
      return this.open(row);
    } catch {
      return {};
    }
  }

  private toChannel(row: ChannelRow): Channel {
    const type = row.type as ChannelType;
    return {
      ...this.loaded(row),
      config: publicConfig(type, JSON.parse(row.config) as Record<string, unknown>, this.openForDisplay(row)),
      created_at: row.created_at,
      created_by: row.created_by,
      updated_at: row.updated_at,
      updated_by: row.updated_by,
      delivery: this.repo.health(row.id),
    };
  }
}
