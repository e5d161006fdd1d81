import { createHash } from 'node:crypto';
import type { ActorType, AuditEvent, AuditOutcome, AuditQuery } from '../../common/schemas/audit.js';
import type { List } from '../../common/schemas/shared.js';
import type { Db } from '../db/database.js';
import type { AuditRepository } from '../repositories/audit.js';
import type { SettingsRepository } from '../repositories/settings.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { startPeriodic } from './periodic.js';

export const GENESIS_HASH = '0'.repeat(64);
const RETENTION_KEY = 'audit.retention_days';
const ANCHOR_KEY = 'audit.chain_anchor';
export const DEFAULT_RETENTION_DAYS = 90;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface AuditEntry {
  actor_type: ActorType;
  actor: string | null;
  action: string;
  target?: string | null;
  outcome: AuditOutcome;
  source_ip?: string | null;
  request_id?: string | null;
  details?: Record<string, unknown>;
}

const SECRET_KEY = /token|signature|secret|password|passphrase|private|value|nonce/i;
const MAX_DETAIL_STRING = 1000;

/** Removes anything that could be a credential before it reaches the audit log. */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 4) return '[nested]';
  if (typeof value === 'string') return value.length > MAX_DETAIL_STRING ? value.slice(0, MAX_DETAIL_STRING) + '…' : value;
  if (Array.isArray(value)) return value.slice(0, 50).map((v) => redact(v, depth + 1));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value).slice(0, 50)) out[k] = SECRET_KEY.test(k) ? '[redacted]' : redact(v, depth + 1);
    return out;
  }
  return value;
}

function chainHash(prev: string, e: Omit<AuditEvent, 'id' | 'hash' | 'prev_hash'>): string {
  const body = JSON.stringify([e.time, e.actor_type, e.actor, e.action, e.target, e.outcome, e.source_ip, e.request_id, e.details]);
  return createHash('sha256').update(prev).update('\n').update(body).digest('hex');
}

export class AuditService {
  private stopRetention: (() => void) | undefined;

  constructor(
    private readonly db: Db,
    private readonly repo: AuditRepository,
    private readonly settings: SettingsRepository,
  ) {}

  private readonly recordedListeners: ((entry: AuditEntry) => void)[] = [];

  /** Told of every recorded entry after it is stored (the event bus turns some into notifications). */
  onRecorded(listener: (entry: AuditEntry) => void): void {
    this.recordedListeners.push(listener);
  }

  /** Appends one event to the hash chain; runs inside the caller's transaction when there is one. */
  record(entry: AuditEntry): number {
    const id = this.append(entry);
    for (const listener of this.recordedListeners) {
      try {
        listener(entry);
      } catch {
        // A listener's failure must not undo or fail what was audited; the bus logs its own errors.
      }
    }
    return id;
  }

  private append(entry: AuditEntry): number {
    return this.db.transaction(() => {
      const prev = this.repo.lastHash() ?? this.settings.get<string>(ANCHOR_KEY, GENESIS_HASH);
      const event = {
        time: new Date().toISOString(),
        actor_type: entry.actor_type,
        actor: entry.actor,
        action: entry.action,
        target: entry.target ?? null,
        outcome: entry.outcome,
        source_ip: entry.source_ip ?? null,
        request_id: entry.request_id ?? null,
        details: (redact(entry.details ?? {}) as Record<string, unknown>),
      };
      const hash = chainHash(prev, event);
      return this.repo.insert({ ...event, details: JSON.stringify(event.details), prev_hash: prev, hash });
    })();
  }

  query(q: AuditQuery): List<AuditEvent> {
    const limit = q.limit ?? 100;
    const beforeId = q.cursor === undefined ? undefined : decodeCursor(q.cursor, 'id');
    const items = this.repo.query({
      actor: q.actor,
      action: q.action,
      target: q.target,
      outcome: q.outcome,
      since: q.since && new Date(q.since).toISOString(),
      until: q.until && new Date(q.until).toISOString(),
      beforeId: typeof beforeId === 'number' ? beforeId : undefined,
      limit: limit + 1,
    });
    const more = items.length > limit;
    if (more) items.pop();
    return { items, next_cursor: more ? encodeCursor({ id: items[items.length - 1]!.id }) : null };
  }

  /**
   * Deletes events older than `before` and records the prune as a new event.
   * The hash the deleted part of the chain reached becomes the anchor the
   * remaining chain is checked from, so the chain restarts, on the record.
   */
  prune(before: Date, actor: { type: ActorType; id: string | null; ip?: string | null; requestId?: string | null }): number {
    return this.db.transaction(() => {
      const iso = before.toISOString();
      const { deleted, lastHash } = this.repo.prune(iso);
      if (lastHash) this.settings.set(ANCHOR_KEY, lastHash);
      this.record({
        actor_type: actor.type,
        actor: actor.id,
        action: 'audit.prune',
        outcome: 'success',
        source_ip: actor.ip,
        request_id: actor.requestId,
        details: { before: iso, deleted, chain_anchor: lastHash },
      });
      return deleted;
    })();
  }

  retentionDays(): number {
    return this.settings.get(RETENTION_KEY, DEFAULT_RETENTION_DAYS);
  }

  setRetentionDays(days: number): void {
    this.settings.set(RETENTION_KEY, days);
  }

  /** Prunes by the retention setting; returns how many events went. */
  applyRetention(now = Date.now()): number {
    const days = this.retentionDays();
    if (days === 0) return 0;
    const before = new Date(now - days * DAY_MS);
    if (!this.repo.query({ until: before.toISOString(), limit: 1 }).length) return 0;
    return this.prune(before, { type: 'system', id: 'retention' });
  }

  startRetentionJob(onError: (err: unknown) => void): void {
    this.stopRetention ??= startPeriodic(() => this.applyRetention(), DAY_MS, onError);
  }

  stop(): void {
    this.stopRetention?.();
    this.stopRetention = undefined;
  }

  /** Walks the whole chain oldest first and reports the first event that does not fit. */
  verifyChain(): { ok: boolean; checked: number; first_bad_id: number | null; reason: string | null } {
    let prev = this.settings.get<string>(ANCHOR_KEY, GENESIS_HASH);
    let checked = 0;
    let after = 0;
    for (;;) {
      const page = this.repo.page(after, 1000);
      if (!page.length) break;
      for (const e of page) {
        if (e.prev_hash !== prev) return { ok: false, checked, first_bad_id: e.id, reason: 'prev_hash does not match the event before it' };
        if (chainHash(prev, e) !== e.hash) return { ok: false, checked, first_bad_id: e.id, reason: 'event content does not match its hash' };
        prev = e.hash;
        checked++;
        after = e.id;
      }
    }
    return { ok: true, checked, first_bad_id: null, reason: null };
  }
}
