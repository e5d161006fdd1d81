// Maintenance windows: a selector over agent tags and a time span. While a window is
// active for an agent, its notifications are recorded but not sent to channels, and
// assignments marked only_in_maintenance may change it. Status is derived when read.
import { Type, type Static } from 'typebox';
import { Selector } from './assignments.js';
import { ListQuery, Timestamp } from './shared.js';

export const WINDOW_STATUSES = ['scheduled', 'active', 'ended'] as const;
export type WindowStatus = (typeof WINDOW_STATUSES)[number];
export const WindowStatus = Type.Enum(WINDOW_STATUSES, { description: 'Derived when read: scheduled before starts_at, active until ends_at, then ended' });

export const WindowId = Type.String({ format: 'uuid' });
const WindowName = Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' });
const Reason = Type.String({ maxLength: 1000 });
const Instant = (description: string) => Type.String({ format: 'date-time', description });

export const MaintenanceWindow = Type.Object({
  id: WindowId,
  name: Type.String(),
  selector: Type.String(),
  starts_at: Timestamp,
  ends_at: Timestamp,
  reason: Type.String(),
  status: WindowStatus,
  matching_agents: Type.Integer({ minimum: 0, description: 'Accepted agents the selector matches now' }),
  created_at: Timestamp,
  created_by: Type.String(),
  updated_at: Timestamp,
  updated_by: Type.String(),
});
export type MaintenanceWindow = Static<typeof MaintenanceWindow>;

export const WindowCreate = Type.Object(
  {
    name: WindowName,
    selector: Selector,
    starts_at: Type.Optional(Instant('Default: now')),
    ends_at: Instant('After starts_at'),
    reason: Type.Optional(Reason),
  },
  { additionalProperties: false },
);
export type WindowCreate = Static<typeof WindowCreate>;

export const WindowUpdate = Type.Object(
  {
    name: Type.Optional(WindowName),
    selector: Type.Optional(Selector),
    starts_at: Type.Optional(Instant('Only while the window is scheduled')),
    ends_at: Type.Optional(Instant('Now (or earlier) ends an active window at once')),
    reason: Type.Optional(Reason),
  },
  { additionalProperties: false, description: 'Fields left out keep their values' },
);
export type WindowUpdate = Static<typeof WindowUpdate>;

export const WindowParams = Type.Object({ id: WindowId });

export const WindowQuery = Type.Object(
  { ...ListQuery.properties, status: Type.Optional(WindowStatus) },
  { additionalProperties: false },
);
export type WindowQuery = Static<typeof WindowQuery>;
