import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { List } from '../../common/schemas/shared.js';
import type { AgentMaintenance } from '../../common/schemas/agents.js';
import type { MaintenanceWindow, WindowCreate, WindowQuery, WindowStatus, WindowUpdate } from '../../common/schemas/maintenance.js';
import type { FleetEvent } from '../../common/schemas/events.js';
import { BadRequest, Conflict, NotFound } from '../http/errors.js';
import type { MaintenanceRepository, WindowRow } from '../repositories/maintenance.js';
import { compileOrRefuse, type AgentsService } from './agents.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import type { EventBus } from './event-bus.js';

/** Longest a window may last: a forgotten "until further notice" window would silence machines for good. */
const MAX_SPAN_MS = 366 * 24 * 3600_000;
/** The boundary timer also wakes at least this often, so a clock jump cannot leave a window unannounced for long. */
const MAX_SLEEP_MS = 60_000;

export interface MaintenanceEvents {
  /** A window was created, changed, deleted, started or ended (the live stream tells the UI). */
  changed: [windowId: string];
  /** Its end was announced: `held` are the events it kept from channels (the delivery queue sends digests). */
  ended: [window: MaintenanceWindow, announcement: FleetEvent, held: FleetEvent[]];
}

export function windowStatus(row: Pick<WindowRow, 'starts_at' | 'ends_at'>, now = new Date().toISOString()): WindowStatus {
  if (now < row.starts_at) return 'scheduled';
  return now < row.ends_at ? 'active' : 'ended';
}

function instant(value: string, field: string): string {
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw new BadRequest(`${field} is not a date-time`, [{ field, message: 'must be an RFC 3339 date-time' }]);
  return new Date(t).toISOString();
}

function span(startsAt: string, endsAt: string, fieldPrefix = 'body'): void {
  if (endsAt <= startsAt) throw new BadRequest('ends_at must be after starts_at', [{ field: `${fieldPrefix}.ends_at`, message: `must be after starts_at (${startsAt})` }]);
  if (Date.parse(endsAt) - Date.parse(startsAt) > MAX_SPAN_MS) {
    throw new BadRequest('a maintenance window may last at most 366 days', [{ field: `${fieldPrefix}.ends_at`, message: 'must be at most 366 days after starts_at' }]);
  }
}

interface OpenWindow {
  row: WindowRow;
  matches: (tags: Record<string, string>) => boolean;
}

/**
 * Maintenance windows: CRUD with status derived from the clock, which agents a window
 * covers now, and a timer that announces each start and end exactly once
 * (maintenance.started / maintenance.ended), also for boundaries passed while stopped.
 */
export class MaintenanceService {
  readonly events = new EventEmitter<MaintenanceEvents>();
  /** Windows not yet announced as ended, with compiled selectors; rebuilt on every change. */
  private open: OpenWindow[] = [];
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(
    private readonly repo: MaintenanceRepository,
    private readonly agents: AgentsService,
    private readonly bus: EventBus,
    /** What a window held back, and how its end summarises it (maintenance-digest.ts). */
    private readonly digest: { held: (windowId: string) => FleetEvent[]; summarise: (window: MaintenanceWindow, held: FleetEvent[]) => { title: string; body: string } },
  ) {
    this.reload();
  }

  list(q: WindowQuery): List<MaintenanceWindow> {
    const limit = q.limit ?? 100;
    const before = q.cursor === undefined ? undefined : { starts_at: String(decodeCursor(q.cursor, 'at')), id: String(decodeCursor(q.cursor, 'id')) };
    const rows = this.repo.page({ now: new Date().toISOString(), status: q.status, before, limit: limit + 1 });
    const page = rows.slice(0, limit);
    const fleet = this.agents.acceptedTags();
    const last = page[page.length - 1];
    return {
      items: page.map((r) => this.toWindow(r, fleet)),
      next_cursor: rows.length > limit && last ? encodeCursor({ at: last.starts_at, id: last.id }) : null,
    };
  }

  get(id: string): MaintenanceWindow {
    return this.toWindow(this.require(id));
  }

  create(req: WindowCreate, actor: string): MaintenanceWindow {
    const now = new Date().toISOString();
    compileOrRefuse(req.selector, 'body.selector');
    const startsAt = req.starts_at ? instant(req.starts_at, 'body.starts_at') : now;
    const endsAt = instant(req.ends_at, 'body.ends_at');
    span(startsAt, endsAt);
    if (endsAt <= now) throw new BadRequest('ends_at is in the past: the window would never be active', [{ field: 'body.ends_at', message: 'must be in the future' }]);
    const row = { id: randomUUID(), name: req.name.trim(), selector: req.selector, starts_at: startsAt, ends_at: endsAt, reason: req.reason ?? '', created_at: now, created_by: actor, updated_at: now, updated_by: actor };
    this.repo.insert(row);
    this.changed(row.id);
    return this.get(row.id);
  }

  /**
   * Changes what is given. An active window's start has passed and stays; an ends_at at
   * or before now ends it at once (its end is announced before this returns). An ended
   * window can only be renamed or have its reason changed.
   */
  update(id: string, req: WindowUpdate, actor: string): MaintenanceWindow {
    const row = this.require(id);
    const now = new Date().toISOString();
    const status = row.ended_sent_at ? 'ended' : windowStatus(row, now);
    if (status === 'ended' && (req.selector !== undefined || req.starts_at !== undefined || req.ends_at !== undefined)) {
      throw new Conflict(`maintenance window ${row.name} has ended; only its name and reason can change`, 'window-ended');
    }
    if (req.selector !== undefined) compileOrRefuse(req.selector, 'body.selector');
    let startsAt = row.starts_at;
    if (req.starts_at !== undefined) {
      const wanted = instant(req.starts_at, 'body.starts_at');
      if (status === 'active' && wanted !== row.starts_at) throw new Conflict(`maintenance window ${row.name} has started; its starts_at cannot change`, 'window-started');
      startsAt = wanted;
    }
    let endsAt = req.ends_at !== undefined ? instant(req.ends_at, 'body.ends_at') : row.ends_at;
    if (status === 'active') {
      // Ending an active window "now" with a client clock a little behind ours must not move the end before what was already held.
      if (endsAt < now) endsAt = now;
      if (endsAt > startsAt) span(startsAt, endsAt); // an extension stays within the longest span
    } else {
      if (req.ends_at !== undefined && endsAt <= now) {
        throw new BadRequest('ends_at is in the past: the window would never be active (delete it instead)', [{ field: 'body.ends_at', message: 'must be in the future for a window that has not started' }]);
      }
      span(startsAt, endsAt);
    }
    this.repo.update({ id, name: req.name?.trim() ?? row.name, selector: req.selector ?? row.selector, starts_at: startsAt, ends_at: endsAt, reason: req.reason ?? row.reason, updated_at: now, updated_by: actor });
    this.changed(id);
    return this.get(id);
  }

  /** Deleting an active window ends it first, so what it held back is summarised, not lost. */
  remove(id: string, actor: string): MaintenanceWindow {
    const row = this.require(id);
    const now = new Date().toISOString();
    if (!row.ended_sent_at && windowStatus(row, now) === 'active') {
      this.repo.update({ id, name: row.name, selector: row.selector, starts_at: row.starts_at, ends_at: now, reason: row.reason, updated_at: now, updated_by: actor });
      this.tick();
    }
    const window = this.get(id);
    this.repo.delete(id);
    this.changed(id);
    return window;
  }

  /** The window covering this agent now, if any (the first to end wins). */
  windowFor(nodeId: string, tags = this.agents.tags(nodeId)): AgentMaintenance | null {
    const now = new Date().toISOString();
    let best: WindowRow | undefined;
    for (const w of this.open) {
      if (windowStatus(w.row, now) !== 'active' || !w.matches(tags)) continue;
      if (!best || w.row.ends_at < best.ends_at) best = w.row;
    }
    return best ? { window_id: best.id, name: best.name, ends_at: best.ends_at } : null;
  }

  start(onError: (err: unknown) => void): void {
    this.running = true;
    this.onError = onError;
    this.tick();
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.timer);
  }

  private onError: (err: unknown) => void = () => undefined;

  /** Announces every boundary that has passed, then sleeps until the next one. */
  tick(): void {
    clearTimeout(this.timer);
    try {
      const now = new Date().toISOString();
      for (const row of this.repo.open()) {
        if (row.starts_at <= now && !row.started_sent_at) this.announceStart(row, now);
        if (row.ends_at <= now) this.announceEnd(row, now);
      }
      this.reload();
    } catch (err) {
      this.onError(err);
    }
    if (!this.running) return;
    const now = Date.now();
    let next = now + MAX_SLEEP_MS;
    for (const { row } of this.open) {
      const boundary = Date.parse(row.started_sent_at ? row.ends_at : row.starts_at);
      next = Math.min(next, boundary);
    }
    this.timer = setTimeout(() => this.tick(), Math.max(0, next - now) + 5);
    this.timer.unref();
  }

  private announceStart(row: WindowRow, now: string): void {
    if (!this.repo.markStartedSent(row.id, now)) return;
    const agents = this.agents.matching(row.selector, 'selector');
    this.bus.raise({
      kind: 'maintenance.started',
      title: `Maintenance started: ${row.name}`,
      body: [
        `${agents.length} agent${agents.length === 1 ? '' : 's'} (${row.selector}) until ${row.ends_at}: their notifications are held back from channels until it ends.`,
        row.reason ? `Reason: ${row.reason}` : '',
        agents.length ? `Agents: ${agents.slice(0, 20).join(', ')}${agents.length > 20 ? `, and ${agents.length - 20} more` : ''}` : '',
      ].filter(Boolean).join('\n'),
      window_id: row.id,
      actor: row.updated_by,
    });
    this.events.emit('changed', row.id);
  }

  private announceEnd(row: WindowRow, now: string): void {
    if (!this.repo.markEndedSent(row.id, now)) return;
    const window = this.toWindow({ ...row, ended_sent_at: now });
    const held = this.digest.held(row.id);
    const digest = this.digest.summarise(window, held);
    const announcement = this.bus.raise({ kind: 'maintenance.ended', title: digest.title, body: digest.body, window_id: row.id, actor: row.updated_by });
    this.events.emit('ended', window, announcement, held);
    this.events.emit('changed', row.id);
  }

  private changed(id: string): void {
    this.reload();
    this.events.emit('changed', id);
    if (this.running) this.tick();
  }

  private reload(): void {
    this.open = this.repo.open().map((row) => ({ row, matches: compileOrRefuse(row.selector, 'selector') }));
  }

  private require(id: string): WindowRow {
    const row = this.repo.get(id);
    if (!row) throw new NotFound(`maintenance window ${id} does not exist`, 'window-not-found');
    return row;
  }

  private toWindow(row: WindowRow, fleet = this.agents.acceptedTags()): MaintenanceWindow {
    return {
      id: row.id,
      name: row.name,
      selector: row.selector,
      starts_at: row.starts_at,
      ends_at: row.ends_at,
      reason: row.reason,
      status: windowStatus(row),
      matching_agents: this.agents.matching(row.selector, 'selector', fleet).length,
      created_at: row.created_at,
      created_by: row.created_by,
      updated_at: row.updated_at,
      updated_by: row.updated_by,
    };
  }
}
