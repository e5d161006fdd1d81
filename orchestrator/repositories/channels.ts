import type { Db } from '../db/database.js';

export interface ChannelRow {
  id: string;
  name: string;
  type: string;
  config: string;
  sealed_config: Buffer | null;
  events: string;
  min_severity: string;
  enabled: number;
  template: string | null;
  batch_seconds: number;
  created_at: string;
  created_by: string;
  updated_at: string;
  updated_by: string;
}

export interface DeliveryRow {
  id: number;
  channel_id: string;
  kind: 'event' | 'digest' | 'test';
  event_ids: string;
  title: string;
  message: string;
  status: 'pending' | 'sending' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_at: string | null;
  last_error: string | null;
  response: string | null;
  created_at: string;
  delivered_at: string | null;
}

export interface HealthRow {
  last_success_at: string | null;
  last_error_at: string | null;
  last_error: string | null;
  pending: number;
  failed: number;
}

/** channels and their delivery queue (deliveries). */
export class ChannelsRepository {
  private readonly insertStmt;
  private readonly updateStmt;
  private readonly getStmt;
  private readonly byNameStmt;
  private readonly allStmt;
  private readonly pageStmt;
  private readonly deleteStmt;
  private readonly enqueueStmt;
  private readonly dueStmt;
  private readonly claimStmt;
  private readonly deliveredStmt;
  private readonly retryStmt;
  private readonly failedStmt;
  private readonly resetSendingStmt;
  private readonly deliveryStmt;
  private readonly healthStmt;
  private readonly nextDueStmt;
  private readonly pendingEventsStmt;

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO channels (id, name, type, config, sealed_config, events, min_severity, enabled, template, batch_seconds, created_at, created_by, updated_at, updated_by)
       VALUES (@id, @name, @type, @config, @sealed_config, @events, @min_severity, @enabled, @template, @batch_seconds, @created_at, @created_by, @updated_at, @updated_by)`,
    );
    this.updateStmt = db.prepare(
      `UPDATE channels SET name = @name, type = @type, config = @config, sealed_config = @sealed_config, events = @events, min_severity = @min_severity,
       enabled = @enabled, template = @template, batch_seconds = @batch_seconds, updated_at = @updated_at, updated_by = @updated_by WHERE id = @id`,
    );
    this.getStmt = db.prepare<[string], ChannelRow>('SELECT * FROM channels WHERE id = ?');
    this.byNameStmt = db.prepare<[string], ChannelRow>('SELECT * FROM channels WHERE name = ?');
    this.allStmt = db.prepare<[], ChannelRow>('SELECT * FROM channels ORDER BY name, id');
    this.pageStmt = db.prepare<[string, number], ChannelRow>('SELECT * FROM channels WHERE name > ? ORDER BY name LIMIT ?');
    this.deleteStmt = db.prepare<[string]>('DELETE FROM channels WHERE id = ?');
    this.enqueueStmt = db.prepare(
      `INSERT INTO deliveries (channel_id, kind, event_ids, title, message, status, attempts, next_attempt_at, created_at)
       VALUES (@channel_id, @kind, @event_ids, @title, @message, @status, @attempts, @next_attempt_at, @created_at)`,
    );
    this.dueStmt = db.prepare<[string], DeliveryRow>(
      `SELECT * FROM deliveries WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY channel_id, id`,
    );
    this.claimStmt = db.prepare<[number]>(`UPDATE deliveries SET status = 'sending', attempts = attempts + 1 WHERE id = ? AND status = 'pending'`);
    this.deliveredStmt = db.prepare<[string, string, number]>(
      `UPDATE deliveries SET status = 'delivered', response = ?, delivered_at = ?, next_attempt_at = NULL, last_error = NULL WHERE id = ?`,
    );
    this.retryStmt = db.prepare<[string, string | null, string, number]>(`UPDATE deliveries SET status = 'pending', last_error = ?, response = ?, next_attempt_at = ? WHERE id = ?`);
    this.failedStmt = db.prepare<[string, string | null, number]>(`UPDATE deliveries SET status = 'failed', last_error = ?, response = ?, next_attempt_at = NULL WHERE id = ?`);
    this.resetSendingStmt = db.prepare<[string]>(`UPDATE deliveries SET status = 'pending', next_attempt_at = ? WHERE status = 'sending'`);
    this.deliveryStmt = db.prepare<[number], DeliveryRow>('SELECT * FROM deliveries WHERE id = ?');
    this.healthStmt = db.prepare<[string, string, string, string, string], HealthRow>(
      `SELECT
         (SELECT MAX(delivered_at) FROM deliveries WHERE channel_id = ? AND status = 'delivered') AS last_success_at,
         (SELECT created_at FROM deliveries WHERE channel_id = ? AND last_error IS NOT NULL ORDER BY id DESC LIMIT 1) AS last_error_at,
         (SELECT last_error FROM deliveries WHERE channel_id = ? AND last_error IS NOT NULL ORDER BY id DESC LIMIT 1) AS last_error,
         (SELECT COUNT(*) FROM deliveries WHERE channel_id = ? AND status IN ('pending', 'sending')) AS pending,
         (SELECT COUNT(*) FROM deliveries WHERE channel_id = ? AND status = 'failed') AS failed`,
    );
    this.pendingEventsStmt = db.prepare<[string, number], DeliveryRow>(`SELECT * FROM deliveries WHERE channel_id = ? AND status = 'pending' AND kind = 'event' ORDER BY id LIMIT ?`);
    this.nextDueStmt = db.prepare<[], { at: string | null }>(`SELECT MIN(next_attempt_at) AS at FROM deliveries WHERE status = 'pending'`);
  }

  insert(row: ChannelRow): void {
    this.insertStmt.run(row);
  }

  update(row: ChannelRow): void {
    this.updateStmt.run(row);
  }

  get(id: string): ChannelRow | undefined {
    return this.getStmt.get(id);
  }

  byName(name: string): ChannelRow | undefined {
    return this.byNameStmt.get(name);
  }

  all(): ChannelRow[] {
    return this.allStmt.all();
  }

  /** By name (unique), after `afterName`. */
  page(afterName: string, limit: number): ChannelRow[] {
    return this.pageStmt.all(afterName, limit);
  }

  delete(id: string): boolean {
    return this.deleteStmt.run(id).changes > 0;
  }

  enqueue(row: Omit<DeliveryRow, 'id' | 'last_error' | 'response' | 'delivered_at'>): number {
    return Number(this.enqueueStmt.run(row).lastInsertRowid);
  }

  /** Pending deliveries whose time has come, grouped by channel in queue order. */
  due(now: string): DeliveryRow[] {
    return this.dueStmt.all(now);
  }

  /** Moves a pending delivery to sending (counting the attempt); false when someone else took it. */
  claim(id: number): boolean {
    return this.claimStmt.run(id).changes > 0;
  }

  delivered(id: number, response: string, at: string): void {
    this.deliveredStmt.run(response, at, id);
  }

  retryLater(id: number, error: string, response: string | null, at: string): void {
    this.retryStmt.run(error, response, at, id);
  }

  failed(id: number, error: string, response: string | null): void {
    this.failedStmt.run(error, response, id);
  }

  /** After a crash: sends that never got an answer go back to the queue (a test send is not repeated: it is marked failed). */
  resetSending(now: string): number {
    return this.db.transaction(() => {
      this.db.prepare(`UPDATE deliveries SET status = 'failed', last_error = 'interrupted by a restart' WHERE status = 'sending' AND kind = 'test'`).run();
      return this.resetSendingStmt.run(now).changes;
    })();
  }

  /** A channel's pending event deliveries in queue order, due or not (a batch sends them together). */
  pendingEvents(channelId: string, limit: number): DeliveryRow[] {
    return this.pendingEventsStmt.all(channelId, limit);
  }

  delivery(id: number): DeliveryRow | undefined {
    return this.deliveryStmt.get(id);
  }

  nextDue(): string | null {
    return this.nextDueStmt.get()!.at;
  }

  health(channelId: string): HealthRow {
    return this.healthStmt.get(channelId, channelId, channelId, channelId, channelId)!;
  }

  /** Newest first, keyset on id. */
  deliveries(channelId: string, q: { status?: string; beforeId?: number; limit: number }): DeliveryRow[] {
    const where = ['channel_id = @channelId'];
    const params: Record<string, unknown> = { channelId, limit: q.limit };
    if (q.status) {
      where.push('status = @status');
      params.status = q.status;
    }
    if (q.beforeId !== undefined) {
      where.push('id < @beforeId');
      params.beforeId = q.beforeId;
    }
    return this.db.prepare<Record<string, unknown>, DeliveryRow>(`SELECT * FROM deliveries WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT @limit`).all(params);
  }

  /** Keeps the newest `keep` finished deliveries of each channel. */
  pruneFinished(keep: number): number {
    return this.db
      .prepare<[number]>(
        `DELETE FROM deliveries WHERE status IN ('delivered', 'failed') AND id IN (
           SELECT id FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY channel_id ORDER BY id DESC) AS n FROM deliveries WHERE status IN ('delivered', 'failed')) WHERE n > ?)`,
      )
      .run(keep).changes;
  }
}
