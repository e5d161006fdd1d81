// Fleet events, the per-operator notifications they become, and the live stream
// (/api/v1/events) that pushes them. One definition for the orchestrator, the
// OpenAPI document, the renderer and the CLI.
import { Type, type Static } from 'typebox';
import type { Role } from '../auth.js';
import { ListQuery, Timestamp } from './shared.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const EVENT_KINDS = [
  'agent.pending',
  'agent.accepted',
  'agent.rejected',
  'agent.key_mismatch',
  'agent.offline',
  'agent.online',
  'apply.failed',
  'apply.succeeded',
  'drift.detected',
  'drift.resolved',
  'terminal.opened',
  'operator.added',
  'operator.removed',
  'secret.changed',
  'maintenance.started',
  'maintenance.ended',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];
export const EventKind = Type.Enum(EVENT_KINDS, { description: 'What happened (see docs/notifications.md for when each is emitted)' });

export const SEVERITIES = ['info', 'warning', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];
export const Severity = Type.Enum(SEVERITIES);

export function severityAtLeast(severity: Severity, minimum: Severity): boolean {
  return SEVERITIES.indexOf(severity) >= SEVERITIES.indexOf(minimum);
}

/** How serious each kind is, and the lowest role that gets it as a notification. */
export const EVENT_KIND_INFO: Record<EventKind, { severity: Severity; audience: Role; label: string }> = {
  'agent.pending': { severity: 'info', audience: 'viewer', label: 'Agent waiting for approval' },
  'agent.accepted': { severity: 'info', audience: 'viewer', label: 'Agent accepted' },
  'agent.rejected': { severity: 'info', audience: 'viewer', label: 'Agent rejected' },
  'agent.key_mismatch': { severity: 'critical', audience: 'viewer', label: 'Agent key mismatch' },
  'agent.offline': { severity: 'critical', audience: 'viewer', label: 'Agent offline' },
  'agent.online': { severity: 'info', audience: 'viewer', label: 'Agent back online' },
  'apply.failed': { severity: 'warning', audience: 'viewer', label: 'Apply failed' },
  'apply.succeeded': { severity: 'info', audience: 'viewer', label: 'Apply succeeded' },
  'drift.detected': { severity: 'warning', audience: 'viewer', label: 'Drift detected' },
  'drift.resolved': { severity: 'info', audience: 'viewer', label: 'Drift resolved' },
  'terminal.opened': { severity: 'info', audience: 'viewer', label: 'Terminal opened' },
  'operator.added': { severity: 'info', audience: 'admin', label: 'Operator added' },
  'operator.removed': { severity: 'warning', audience: 'admin', label: 'Operator removed' },
  'secret.changed': { severity: 'info', audience: 'operator', label: 'Secret changed' },
  'maintenance.started': { severity: 'info', audience: 'viewer', label: 'Maintenance started' },
  'maintenance.ended': { severity: 'info', audience: 'viewer', label: 'Maintenance ended' },
};

export const EventId = Type.String({ format: 'uuid', description: 'Event id (UUID); a notification carries the id of its event' });

/** One thing that happened, as the bus carries it and channels receive it. */
export const FleetEvent = Type.Object({
  id: EventId,
  kind: EventKind,
  severity: Severity,
  title: Type.String({ description: 'One line, e.g. "web-1 is offline"' }),
  body: Type.String({ description: 'A few lines of detail' }),
  node_id: Nullable(Type.String()),
  operation_id: Nullable(Type.String({ description: 'For apply.* events: the operation' })),
  window_id: Nullable(Type.String({ description: 'For maintenance.* events: the window; for other events: the window that held the event back from channels' })),
  actor: Nullable(Type.String({ description: 'Operator id when an operator caused it' })),
  created_at: Timestamp,
});
export type FleetEvent = Static<typeof FleetEvent>;

export const Notification = Type.Object({
  id: EventId,
  kind: EventKind,
  severity: Severity,
  title: Type.String(),
  body: Type.String(),
  node_id: Nullable(Type.String()),
  operation_id: Nullable(Type.String()),
  window_id: Nullable(Type.String()),
  held: Type.Boolean({ description: 'Recorded while its agent was in a maintenance window: not sent to channels (summarised when the window ended)' }),
  created_at: Timestamp,
  read: Type.Boolean({ description: 'Read by the requesting operator' }),
  read_at: Nullable(Timestamp),
});
export type Notification = Static<typeof Notification>;

export const NotificationQuery = Type.Object(
  {
    ...ListQuery.properties,
    unread: Type.Optional(Type.Boolean({ description: 'true: only unread; false: only read' })),
    kind: Type.Optional(EventKind),
    severity: Type.Optional(Type.Enum(SEVERITIES, { description: 'At least this severity (warning: warning and critical)' })),
    since: Type.Optional(Type.String({ format: 'date-time', description: 'Only notifications created at or after this time' })),
    node_id: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);
export type NotificationQuery = Static<typeof NotificationQuery>;

export const NotificationList = Type.Object({
  items: Type.Array(Notification, { description: 'Newest first' }),
  next_cursor: Nullable(Type.String()),
  unread_count: Type.Integer({ minimum: 0, description: 'All unread notifications of the requesting operator, whatever the filters' }),
});
export type NotificationList = Static<typeof NotificationList>;

export const NotificationParams = Type.Object({ id: EventId });

export const ReadResult = Type.Object({
  marked: Type.Integer({ minimum: 0, description: 'Notifications that this call marked read' }),
  unread_count: Type.Integer({ minimum: 0 }),
});
export type ReadResult = Static<typeof ReadResult>;

// ---- The live stream: server-sent events on GET /api/v1/events ----

/**
 * Each SSE message has `event: <type>` and `data: <JSON>`. Types:
 * - `hello`: {unread_count} on connect;
 * - `notification`: a Notification for this operator (also carries unread_count);
 * - `unread`: {unread_count} after read markers changed (from any of the operator's tabs);
 * - `agent`: {node_id, online} when an agent's link comes or goes, {node_id, change} for status/tags;
 * - `operation`: {operation_id, node_id, kind, status} when an operation is queued, runs or ends;
 * - `maintenance`: {window_id} when a window is created, changed, starts or ends;
 * - `desktop`: {title, body, severity, kind} for a `desktop` channel: browsers show it with the Notification API.
 */
export interface LiveEventMap {
  hello: { unread_count: number };
  notification: { notification: Notification; unread_count: number };
  unread: { unread_count: number };
  agent: { node_id: string; online?: boolean; change?: 'status' | 'tags' | 'enrolled' | 'deleted' };
  operation: { operation_id: string; node_id: string; kind: string; status: string };
  maintenance: { window_id: string };
  desktop: { title: string; body: string; severity: Severity; kind: EventKind | 'test' };
}
export type LiveEventType = keyof LiveEventMap;
