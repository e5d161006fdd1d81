import { SEVERITIES, type FleetEvent, type Severity } from '../../common/schemas/events.js';
import type { MaintenanceWindow } from '../../common/schemas/maintenance.js';
import type { SendOutcome } from '../../common/schemas/channels.js';
import type { ChannelsRepository, DeliveryRow } from '../repositories/channels.js';
import { eventTemplateFields, renderMessage } from './channels/message-template.js';
import type { ChannelMessage, DesktopOutlet } from './channels/provider.js';
import { sendThrough } from './channels/registry.js';
import { channelAccepts, type ChannelsService, type LoadedChannel } from './channels.js';
import type { Digest } from './maintenance-digest.js';
import { startPeriodic } from './periodic.js';

export interface DeliveryOptions {
  /** First retry after this long; each further one waits twice as long, up to retryCapMs. */
  retryBaseMs: number;
  retryCapMs: number;
  /** Attempts before a delivery is marked failed. */
  maxAttempts: number;
  /** A send that takes longer is aborted and counts as a failed attempt. */
  sendTimeoutMs: number;
  /** Public address of the web UI for links in messages, or null. */
  linkBase: string | null;
}

/** At most this many queued events go out as one message. */
const MAX_BATCH = 50;
/** Finished deliveries kept per channel for its history. */
const HISTORY_KEPT = 500;

type StoredMessage = Omit<ChannelMessage, 'delivery_id'>;

function maxSeverity(events: FleetEvent[]): Severity {
  return events.reduce<Severity>((max, e) => (SEVERITIES.indexOf(e.severity) > SEVERITIES.indexOf(max) ? e.severity : max), 'info');
}

/**
 * The durable delivery queue: every event a channel takes becomes a row in SQLite
 * before anything is sent, a send claims its row first (status sending), and only an
 * answer from the receiver marks it delivered. After a crash the unanswered rows are
 * sent again; the delivered ones never are (X-Corral-Delivery lets receivers drop a
 * repeat). Failures retry with exponential backoff up to a cap, then give up.
 */
export class DeliveryQueue {
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  /** Channels with a send in flight: one at a time per channel keeps their order. */
  private readonly busy = new Map<string, Promise<void>>();
  private readonly aborts = new Set<AbortController>();
  private desktop: DesktopOutlet = { browsers: () => 0 };
  private log: (err: unknown, msg: string) => void = () => undefined;
  private stopPrune: (() => void) | undefined;

  constructor(
    private readonly repo: ChannelsRepository,
    private readonly channels: ChannelsService,
    private readonly options: DeliveryOptions,
  ) {}

  setDesktop(outlet: DesktopOutlet): void {
    this.desktop = outlet;
  }

  setErrorLog(log: (err: unknown, msg: string) => void): void {
    this.log = log;
  }

  start(): number {
    this.running = true;
    const resumed = this.repo.resetSending(new Date().toISOString());
    this.stopPrune = startPeriodic(() => void this.repo.pruneFinished(HISTORY_KEPT), 3600_000, (err) => this.log(err, 'pruning delivery history failed'));
    this.pump();
    return resumed;
  }

  /** Aborts sends in flight (they stay queued for the next start) and waits for them to settle. */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    this.stopPrune?.();
    for (const a of this.aborts) a.abort(new Error('the orchestrator is stopping'));
    await Promise.allSettled([...this.busy.values()]);
  }

  /** Queues an event for every channel that takes it; held events (maintenance) and maintenance.ended (its digest speaks for it) are not. */
  enqueueEvent(event: FleetEvent & { held?: boolean }): void {
    if (event.held || event.kind === 'maintenance.ended') return;
    const now = Date.now();
    for (const channel of this.channels.loadAll()) {
      if (!channelAccepts(channel, event)) continue;
      const message = this.message(channel, 'event', [event], { title: event.title, body: event.body });
      this.insert(channel, 'event', [event], message, new Date(now + channel.batch_seconds * 1000).toISOString());
    }
    this.pump();
  }

  /**
   * One digest per channel when a window ends: what it held back that the channel would
   * have taken, or just the end when the channel takes maintenance.ended.
   */
  enqueueDigest(window: MaintenanceWindow, announcement: FleetEvent, held: FleetEvent[], summarise: (w: MaintenanceWindow, events: FleetEvent[]) => Digest): void {
    for (const channel of this.channels.loadAll()) {
      const wanted = held.filter((e) => channelAccepts(channel, e));
      if (!wanted.length && !channelAccepts(channel, announcement)) continue;
      const digest = summarise(window, wanted);
      const events = [announcement, ...wanted];
      const message = this.message(channel, 'digest', events, digest);
      this.insert(channel, 'digest', events, message, new Date().toISOString());
    }
    this.pump();
  }

  /** Sends a test message through the channel now, records it in its history, and answers the outcome. */
  async test(channelId: string): Promise<SendOutcome> {
    this.channels.require(channelId); // 404 channel-not-found
    const c = this.channels.load(channelId)!;
    const message = this.message(c, 'test', [], {
      title: 'Corral test message',
      body: `If you can read this, the ${c.type} channel "${c.name}" works.`,
    });
    const id = this.repo.enqueue({ channel_id: c.id, kind: 'test', event_ids: '[]', title: message.title, message: JSON.stringify(message), status: 'sending', attempts: 1, next_attempt_at: null, created_at: new Date().toISOString() });
    const outcome = await this.send(c, { ...message, delivery_id: id });
    if (outcome.ok) this.repo.delivered(id, outcome.detail, new Date().toISOString());
    else this.repo.failed(id, outcome.detail, outcome.status_code === null ? null : outcome.detail);
    const { retry: _retry, ...answer } = outcome;
    return answer;
  }

  private insert(channel: LoadedChannel, kind: 'event' | 'digest', events: FleetEvent[], message: StoredMessage, dueAt: string): void {
    this.repo.enqueue({
      channel_id: channel.id,
      kind,
      event_ids: JSON.stringify(events.map((e) => e.id)),
      title: message.title,
      message: JSON.stringify(message),
      status: 'pending',
      attempts: 0,
      next_attempt_at: dueAt,
      created_at: new Date().toISOString(),
    });
  }

  private link(events: FleetEvent[]): string | null {
    if (!this.options.linkBase) return null;
    const base = this.options.linkBase.replace(/\/+$/, '');
    const first = events[0];
    if (events.length === 1 && first?.node_id) return `${base}/#/agents/${encodeURIComponent(first.node_id)}`;
    if (first?.kind.startsWith('maintenance.')) return `${base}/#/maintenance`;
    return `${base}/#/notifications`;
  }

  private message(channel: LoadedChannel, kind: ChannelMessage['kind'], events: FleetEvent[], text: { title: string; body: string }): StoredMessage {
    const severity = maxSeverity(events);
    const first = events[0];
    const link = this.link(events);
    const created_at = new Date().toISOString();
    // One event fills every placeholder from itself; a batch, a digest or a test has no single node or operation.
    const fields =
      kind === 'event' && events.length === 1 && first
        ? eventTemplateFields(first, { link, channel: channel.name })
        : {
            kind: kind === 'event' ? 'batch' : kind === 'digest' ? 'maintenance.ended' : 'test',
            severity,
            title: text.title,
            body: text.body,
            node_id: '',
            operation_id: '',
            time: first?.created_at ?? created_at,
            link: link ?? '',
            channel: channel.name,
          };
    return { kind, severity, title: text.title, text: renderMessage(channel.template, fields), events, link, channel: channel.name, created_at };
  }

  /** Several queued events of a channel go out as one message. */
  private merged(channel: LoadedChannel, rows: DeliveryRow[]): ChannelMessage {
    const stored = rows.map((r) => JSON.parse(r.message) as StoredMessage);
    if (stored.length === 1) return { ...stored[0]!, delivery_id: rows[0]!.id };
    const events = stored.flatMap((m) => m.events);
    const counts = new Map<string, number>();
    for (const e of events) counts.set(e.kind, (counts.get(e.kind) ?? 0) + 1);
    const title = `${events.length} Corral events: ${[...counts].map(([k, n]) => `${n} ${k}`).join(', ')}`;
    const body = events.map((e) => `[${e.severity}] ${e.title}`).join('\n');
    return { ...this.message(channel, 'event', events, { title, body }), delivery_id: rows[0]!.id };
  }

  /** Starts a send for every channel with something due and nothing in flight, then sleeps until the next due time. */
  private pump(): void {
    if (!this.running) return;
    clearTimeout(this.timer);
    try {
      const seen = new Set<string>();
      for (const row of this.repo.due(new Date().toISOString())) {
        if (seen.has(row.channel_id) || this.busy.has(row.channel_id)) continue;
        seen.add(row.channel_id);
        const channel = this.channels.load(row.channel_id);
        if (!channel) continue;
        const rows = row.kind === 'event' ? this.repo.pendingEvents(channel.id, MAX_BATCH) : [row];
        const work = this.sendRows(channel, rows)
          .catch((err: unknown) => this.log(err, 'delivery failed unexpectedly'))
          .finally(() => {
            this.busy.delete(channel.id);
            this.pump();
          });
        this.busy.set(channel.id, work);
      }
      const next = this.repo.nextDue();
      if (next !== null) {
        this.timer = setTimeout(() => this.pump(), Math.min(60_000, Math.max(20, Date.parse(next) - Date.now())));
        this.timer.unref();
      }
    } catch (err) {
      this.log(err, 'the delivery queue could not read its rows');
    }
  }

  private async sendRows(channel: LoadedChannel, candidates: DeliveryRow[]): Promise<void> {
    const rows = candidates.filter((r) => this.repo.claim(r.id));
    if (!rows.length) return;
    const outcome = await this.send(channel, this.merged(channel, rows));
    if (!this.running && !outcome.ok) {
      // Stopping: the unanswered sends go back as they were, to be sent at the next start.
      for (const r of rows) this.repo.retryLater(r.id, outcome.detail, null, new Date().toISOString());
      return;
    }
    const now = new Date().toISOString();
    for (const r of rows) {
      const attempts = r.attempts + 1;
      if (outcome.ok) this.repo.delivered(r.id, outcome.detail, now);
      else if (outcome.retry === false || attempts >= this.options.maxAttempts) this.repo.failed(r.id, outcome.detail, outcome.status_code === null ? null : outcome.detail);
      else this.repo.retryLater(r.id, outcome.detail, outcome.status_code === null ? null : outcome.detail, new Date(Date.now() + this.backoff(attempts)).toISOString());
    }
  }

  private backoff(attempts: number): number {
    const raw = Math.min(this.options.retryCapMs, this.options.retryBaseMs * 2 ** (attempts - 1));
    return Math.round(raw * (0.9 + Math.random() * 0.2));
  }

  private async send(channel: LoadedChannel, message: ChannelMessage) {
    const config = this.channels.sendConfig(channel.id);
    const abort = new AbortController();
    this.aborts.add(abort);
    const timer = setTimeout(() => abort.abort(new Error(`no answer within ${this.options.sendTimeoutMs / 1000} s`)), this.options.sendTimeoutMs);
    try {
      return await sendThrough(channel.type, message, config ?? {}, { signal: abort.signal, desktop: this.desktop });
    } finally {
      clearTimeout(timer);
      this.aborts.delete(abort);
    }
  }
}
