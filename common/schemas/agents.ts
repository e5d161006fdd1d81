import { Type, type Static } from 'typebox';
import { Timestamp } from './shared.js';

export const NodeId = Type.String({ pattern: '^[a-z0-9][a-z0-9._-]{0,62}$', description: 'Agent node id: lower-case letters, digits, . _ -' });
export const TAG_KEY_PATTERN = '^[a-z0-9][a-z0-9._/-]{0,62}$';
export const TagKey = Type.String({ pattern: TAG_KEY_PATTERN, description: 'Tag key: [a-z0-9][a-z0-9._/-]{0,62}' });
export const TagValue = Type.String({ maxLength: 255 });
export const ApprovalStatusSchema = Type.Union([Type.Literal('pending'), Type.Literal('accepted'), Type.Literal('rejected')]);

export const Tags = Type.Record(Type.String(), Type.String(), { description: 'Tag key -> value' });

/** The attributes shown in lists; the whole map is at /agents/{node_id}/attributes. */
export const KeyAttributes = Type.Object({
  hostname: Type.Union([Type.String(), Type.Null()]),
  os: Type.Union([Type.String(), Type.Null()]),
  distribution: Type.Union([Type.String(), Type.Null()]),
  distribution_version: Type.Union([Type.String(), Type.Null()]),
  kernel: Type.Union([Type.String(), Type.Null()]),
  arch: Type.Union([Type.String(), Type.Null()]),
  ips: Type.Array(Type.String()),
  cpu_count: Type.Union([Type.Integer(), Type.Null()]),
  memory_bytes: Type.Union([Type.Number(), Type.Null()]),
});

export const MetricsGlance = Type.Object({
  ts: Timestamp,
  cpu_percent: Type.Number(),
  mem_used: Type.Number(),
  mem_total: Type.Number(),
  load1: Type.Number(),
});

/** How an agent row shows that a maintenance window covers it now. */
export const AgentMaintenance = Type.Object({ window_id: Type.String({ format: 'uuid' }), name: Type.String(), ends_at: Type.String({ format: 'date-time' }) });
export type AgentMaintenance = Static<typeof AgentMaintenance>;

export const Agent = Type.Object({
  node_id: NodeId,
  status: ApprovalStatusSchema,
  online: Type.Boolean(),
  last_seen: Type.Union([Timestamp, Type.Null()]),
  first_seen: Timestamp,
  status_changed_at: Type.Union([Timestamp, Type.Null()]),
  status_changed_by: Type.Union([Type.String(), Type.Null()]),
  key_fingerprint: Type.String({ description: 'SHA256 fingerprint of the agent key, to compare before approving' }),
  agent_version: Type.Union([Type.String(), Type.Null()]),
  address: Type.Union([Type.String(), Type.Null()], { description: 'Address the agent last connected from' }),
  tags: Tags,
  attributes: KeyAttributes,
  metrics: Type.Union([MetricsGlance, Type.Null()]),
  maintenance: Type.Union([AgentMaintenance, Type.Null()], { description: 'The maintenance window covering the agent now, if any' }),
});
export type Agent = Static<typeof Agent>;

export const AgentListQuery = Type.Object(
  {
    status: Type.Optional(ApprovalStatusSchema),
    online: Type.Optional(Type.Boolean()),
    selector: Type.Optional(Type.String({ maxLength: 2000, description: 'Label selector over tags, e.g. role=web,env in (prod,staging),!legacy' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);
export type AgentListQuery = Static<typeof AgentListQuery>;

export const AgentParams = Type.Object({ node_id: NodeId }, { additionalProperties: false });
export const TagParams = Type.Object({ node_id: NodeId, key: TagKey }, { additionalProperties: false });

export const ApprovalRequest = Type.Object(
  { status: Type.Union([Type.Literal('accepted'), Type.Literal('rejected')], { description: 'pending -> accepted|rejected; accepted -> rejected; rejected -> accepted' }) },
  { additionalProperties: false },
);
export type ApprovalRequest = Static<typeof ApprovalRequest>;

// Keys are checked by the service, so a bad key is reported by name rather than as an unknown field.
export const ReplaceTagsRequest = Type.Record(Type.String(), TagValue, { maxProperties: 100, description: 'The complete new tag set' });
export type ReplaceTagsRequest = Static<typeof ReplaceTagsRequest>;
export const SetTagRequest = Type.Object({ value: TagValue }, { additionalProperties: false });

export const TagsResponse = Type.Object({ node_id: NodeId, tags: Tags });

export const AttributesResponse = Type.Object({
  node_id: NodeId,
  updated_at: Type.Union([Timestamp, Type.Null()]),
  attributes: Type.Record(Type.String(), Type.Unknown()),
});

export const TagSummary = Type.Object({
  key: Type.String(),
  agents: Type.Integer({ description: 'How many agents carry the key' }),
  values: Type.Array(Type.Object({ value: Type.String(), agents: Type.Integer() })),
});
export const TagsListResponse = Type.Object({ items: Type.Array(TagSummary) });
export type TagSummary = Static<typeof TagSummary>;
