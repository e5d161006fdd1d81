import { Type, type Static } from 'typebox';
import { Timestamp } from './shared.js';

const Outcome = Type.Union([Type.Literal('success'), Type.Literal('denied'), Type.Literal('error')]);
export type AuditOutcome = Static<typeof Outcome>;
const ActorTypeSchema = Type.Union([Type.Literal('operator'), Type.Literal('agent'), Type.Literal('system'), Type.Literal('anonymous')]);
export type ActorType = Static<typeof ActorTypeSchema>;

export const AuditEvent = Type.Object({
  id: Type.Integer(),
  time: Timestamp,
  actor_type: ActorTypeSchema,
  actor: Type.Union([Type.String(), Type.Null()]),
  action: Type.String(),
  target: Type.Union([Type.String(), Type.Null()]),
  outcome: Outcome,
  source_ip: Type.Union([Type.String(), Type.Null()]),
  request_id: Type.Union([Type.String(), Type.Null()]),
  details: Type.Record(Type.String(), Type.Unknown()),
  prev_hash: Type.String(),
  hash: Type.String(),
});
export type AuditEvent = Static<typeof AuditEvent>;

export const AuditQuery = Type.Object(
  {
    actor: Type.Optional(Type.String({ maxLength: 200 })),
    action: Type.Optional(Type.String({ maxLength: 200, description: 'Exact action, or a prefix ending in "*" (e.g. "operator.*")' })),
    target: Type.Optional(Type.String({ maxLength: 200 })),
    outcome: Type.Optional(Outcome),
    since: Type.Optional(Timestamp),
    until: Type.Optional(Timestamp),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);
export type AuditQuery = Static<typeof AuditQuery>;

export const AuditPruneQuery = Type.Object({ before: Timestamp }, { additionalProperties: false });
export const AuditPruneResponse = Type.Object({ deleted: Type.Integer(), before: Timestamp });

export const AuditRetention = Type.Object(
  { days: Type.Integer({ minimum: 0, maximum: 36500, description: 'Days to keep audit events; 0 keeps them forever' }) },
  { additionalProperties: false },
);
export type AuditRetention = Static<typeof AuditRetention>;

export const AuditChainReport = Type.Object({
  ok: Type.Boolean(),
  checked: Type.Integer(),
  first_bad_id: Type.Union([Type.Integer(), Type.Null()]),
  reason: Type.Union([Type.String(), Type.Null()]),
});
