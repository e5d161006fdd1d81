import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { ROLES, roleAllows } from '../../common/auth.js';
import { EVENT_KIND_INFO, type EventKind, type FleetEvent, type Severity } from '../../common/schemas/events.js';
import type { EventRow, EventsRepository } from '../repositories/events.js';

/** What a source says happened; the bus adds id, time, severity (from the kind) and the hold. */
export interface RaisedEvent {
  kind: EventKind;
  title: string;
  body?: string;
  severity?: Severity;
  node_id?: string | null;
  operation_id?: string | null;
  window_id?: string | null;
  actor?: string | null;
}

/** Which maintenance window (if any) covers an agent now: its events are then held back from channels. */
export type HoldLookup = (nodeId: string) => { window_id: string } | null;

export interface EventBusEvents {
  /** Stored, with notifications for `recipients`; `event.held` events must not reach channels. */
  raised: [event: FleetEvent & { held: boolean }, recipients: string[]];
}

export function eventFromRow(row: EventRow): FleetEvent & { held: boolean } {
  return {
    id: row.id,
    kind: row.kind as EventKind,
    severity: row.severity as Severity,
    title: row.title,
    body: row.body,
    node_id: row.node_id,
    operation_id: row.operation_id,
    window_id: row.window_id,
    actor: row.actor,
    created_at: row.created_at,
    held: row.held === 1,
  };
}

/**
 * The one place fleet events enter: each is stored with a notification for every
 * operator whose role may see its kind, then handed to listeners (the delivery queue,
 * the live stream). Sources call raise(); see fleet-event-sources.ts.
 */
export class EventBus {
  readonly events = new EventEmitter<EventBusEvents>();
  private holdFor: HoldLookup = () => null;
  private onListenerError: (err: unknown) => void = () => undefined;

  constructor(private readonly repo: EventsRepository) {}

  setHoldLookup(lookup: HoldLookup): void {
    this.holdFor = lookup;
  }

  setErrorHandler(handler: (err: unknown) => void): void {
    this.onListenerError = handler;
  }

  raise(e: RaisedEvent): FleetEvent & { held: boolean } {
    const info = EVENT_KIND_INFO[e.kind];
    // maintenance.* events are about the window itself and always go out.
    const hold = e.node_id && !e.kind.startsWith('maintenance.') ? this.holdFor(e.node_id) : null;
    const row: EventRow = {
      id: randomUUID(),
      kind: e.kind,
      severity: e.severity ?? info.severity,
      title: e.title,
      body: e.body ?? '',
      node_id: e.node_id ?? null,
      operation_id: e.operation_id ?? null,
      window_id: hold ? hold.window_id : (e.window_id ?? null),
      held: hold ? 1 : 0,
      actor: e.actor ?? null,
      created_at: new Date().toISOString(),
    };
    const recipients = this.repo.insert(row, ROLES.filter((role) => roleAllows(role, info.audience)));
    const event = eventFromRow(row);
    // A failing listener must not fail the source (an agent's link, an apply): it is logged.
    for (const listener of this.events.listeners('raised')) {
      try {
        listener(event, recipients);
      } catch (err) {
        this.onListenerError(err);
      }
    }
    return event;
  }
}
