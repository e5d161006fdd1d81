// Desired-state work as the API shows it: operations (apply, plan), their per-resource
// results, believed machine state and drift records. One definition for the routes,
// the OpenAPI document, the renderer's client and the CLI.
import { Type, type Static } from 'typebox';
import { RESOURCE_TYPES } from '../modules/spec.js';
import { ModuleName } from './modules.js';
import { NodeId } from './agents.js';
import { ListQuery, Timestamp } from './shared.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const OperationId = Type.String({ format: 'uuid', description: 'Operation id (UUID)' });
export const BatchId = Type.String({ format: 'uuid', description: 'Batch id (UUID): the operations one assignment apply or plan created' });
export const DriftId = Type.String({ format: 'uuid', description: 'Drift record id (UUID)' });

export const OPERATION_KINDS = ['apply', 'plan'] as const;
export type OperationKind = (typeof OPERATION_KINDS)[number];
export const OperationKind = Type.Enum(OPERATION_KINDS);

export const OPERATION_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'partial', 'cancelled', 'skipped'] as const;
export type OperationStatus = (typeof OPERATION_STATUSES)[number];
export const OperationStatus = Type.Enum(
  OPERATION_STATUSES,
  {
    description:
      'queued -> running -> succeeded (every resource fine) | partial (some failed or were skipped, others applied) | failed (nothing applied, or the run itself failed); ' +
      'cancelled: never finished (agent went offline, orchestrator restarted); skipped: never sent (agent offline, or outside a required maintenance window), with the reason in `message`',
  },
);
export const FINISHED_STATUSES: readonly OperationStatus[] = ['succeeded', 'failed', 'partial', 'cancelled', 'skipped'];

export const OPERATION_TRIGGERS = ['operator', 'assignment', 'schedule'] as const;
export type OperationTrigger = (typeof OPERATION_TRIGGERS)[number];
export const OperationTrigger = Type.Enum(OPERATION_TRIGGERS);

export const RESOURCE_STATUSES = ['unchanged', 'would_change', 'would_fail', 'changed', 'failed', 'skipped'] as const;
export type ResourceStatus = (typeof RESOURCE_STATUSES)[number];
export const ResourceStatus = Type.Enum(RESOURCE_STATUSES, {
  description: 'plan: unchanged | would_change | would_fail; apply: unchanged | changed | failed | skipped (a requirement failed)',
});

export const ResourceTypeSchema = Type.Enum(RESOURCE_TYPES);

export const PropertyChange = Type.Object({ before: Type.Unknown(), after: Type.Unknown() });
export const ResourceDiff = Type.Object(
  {
    properties: Type.Record(Type.String(), PropertyChange, { description: 'Per property: what it is and what it becomes' }),
    content: Type.Optional(Type.String({ description: "A unified diff of a file's contents" })),
  },
  { description: 'Secret values are replaced by ********' },
);
export type ResourceDiff = Static<typeof ResourceDiff>;

export const ChangeKind = Type.Union([Type.Literal('intentional'), Type.Literal('corrective')], {
  description: 'For a changed resource: intentional when the desired state changed since the last successful apply (or the resource is new); corrective when the desired state is the same and the machine had drifted',
});
export type ChangeKind = Static<typeof ChangeKind>;

export const ResourceResult = Type.Object({
  module: ModuleName,
  resource_id: Type.String(),
  type: ResourceTypeSchema,
  status: ResourceStatus,
  diff: Nullable(ResourceDiff),
  message: Nullable(Type.String()),
  duration_ms: Type.Integer({ minimum: 0 }),
  change_kind: Nullable(ChangeKind),
  notified_by: Type.Array(Type.String(), { description: 'Resources whose change re-ran or restarted this one (notify)' }),
  has_output: Type.Boolean({ description: 'Captured output exists (see the /output endpoint)' }),
});
export type ResourceResult = Static<typeof ResourceResult>;

export const OperationModule = Type.Object({
  name: ModuleName,
  revision: Type.Integer({ minimum: 1 }),
  content_hash: Type.String({ description: 'SHA-256 of the exact module text used' }),
});
export type OperationModule = Static<typeof OperationModule>;

export const OperationCounts = Type.Object({
  total: Type.Integer({ minimum: 0 }),
  unchanged: Type.Integer({ minimum: 0 }),
  changed: Type.Integer({ minimum: 0 }),
  would_change: Type.Integer({ minimum: 0 }),
  failed: Type.Integer({ minimum: 0 }),
  would_fail: Type.Integer({ minimum: 0 }),
  skipped: Type.Integer({ minimum: 0 }),
});
export type OperationCounts = Static<typeof OperationCounts>;

export const VarsMap = Type.Record(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]{0,63}$' }), Type.Union([Type.String({ maxLength: 65536 }), Type.Number(), Type.Boolean()]), {
  description: 'Values for the modules\' `vars` (override the defaults in the YAML)',
  maxProperties: 256,
});
export type VarsMap = Static<typeof VarsMap>;

export const OperationSummary = Type.Object({
  operation_id: OperationId,
  kind: OperationKind,
  node_id: NodeId,
  status: OperationStatus,
  trigger: OperationTrigger,
  actor: Type.String({ description: 'Operator id, or "system" for scheduled work' }),
  assignment: Nullable(Type.String()),
  batch_id: Nullable(BatchId),
  modules: Type.Array(OperationModule),
  vars: VarsMap,
  plan_operation_id: Nullable(OperationId),
  plan_hash: Nullable(Type.String({ description: 'For a plan: the hash of what it reviewed (desired state and the machine as read); an apply given this plan refuses to run if it no longer matches' })),
  counts: OperationCounts,
  message: Nullable(Type.String({ description: 'Why the operation was skipped, cancelled or failed as a whole' })),
  code: Nullable(Type.String({ description: 'Machine code for `message`, e.g. agent_offline, plan_stale' })),
  created_at: Timestamp,
  started_at: Nullable(Timestamp),
  finished_at: Nullable(Timestamp),
});
export type OperationSummary = Static<typeof OperationSummary>;

export const Operation = Type.Object({ ...OperationSummary.properties, results: Type.Array(ResourceResult) });
export type Operation = Static<typeof Operation>;

export const ResourceOutput = Type.Object({
  module: ModuleName,
  resource_id: Type.String(),
  stdout: Type.String(),
  stderr: Type.String(),
  exit_code: Nullable(Type.Integer()),
  truncated: Type.Boolean({ description: 'The output was longer than the cap (1 MiB per stream) and was cut' }),
});
export type ResourceOutput = Static<typeof ResourceOutput>;

export const OperationOutput = Type.Object({
  operation_id: OperationId,
  node_id: NodeId,
  resources: Type.Array(ResourceOutput, { description: 'Resources that captured output (scripts, notify re-runs), in run order; secret values are ********' }),
});
export type OperationOutput = Static<typeof OperationOutput>;

export const StateRunRequest = Type.Object(
  {
    modules: Type.Array(ModuleName, { minItems: 1, maxItems: 64, description: 'Module names, applied in this order' }),
    vars: Type.Optional(VarsMap),
    plan_operation_id: Type.Optional(
      Type.String({
        format: 'uuid',
        description:
          'Apply only: the plan this apply carries out. Refused with 409 plan_stale if the modules, vars, tags, secrets or the machine changed since that plan',
      }),
    ),
  },
  { additionalProperties: false },
);
export type StateRunRequest = Static<typeof StateRunRequest>;

export const OperationsQuery = Type.Object(
  {
    ...ListQuery.properties,
    node_id: Type.Optional(NodeId),
    kind: Type.Optional(OperationKind),
    status: Type.Optional(OperationStatus),
    assignment: Type.Optional(Type.String({ maxLength: 63 })),
    batch_id: Type.Optional(BatchId),
    since: Type.Optional(Type.String({ format: 'date-time', description: 'Only operations created at or after this time' })),
  },
  { additionalProperties: false },
);
export type OperationsQuery = Static<typeof OperationsQuery>;

export const AgentOperationsQuery = Type.Object(
  {
    ...ListQuery.properties,
    kind: Type.Optional(OperationKind),
    status: Type.Optional(OperationStatus),
    since: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
);
export type AgentOperationsQuery = Static<typeof AgentOperationsQuery>;

export const NodeParams = Type.Object({ node_id: NodeId });
export const OperationParams = Type.Object({ operation_id: OperationId });
export const NodeOperationParams = Type.Object({ node_id: NodeId, operation_id: OperationId });
export const DriftParams = Type.Object({ drift_id: DriftId });

// Believed machine state: what the last successful apply left, and what the agent saw.
export const BelievedResource = Type.Object({
  module: ModuleName,
  resource_id: Type.String(),
  type: ResourceTypeSchema,
  desired: Type.Record(Type.String(), Type.Unknown(), { description: 'The properties as applied (templates expanded, secret values ********)' }),
  observed: Type.Unknown({ description: 'What the agent read after converging (large contents as a hash)' }),
  status: ResourceStatus,
  operation_id: OperationId,
  applied_at: Timestamp,
});
export type BelievedResource = Static<typeof BelievedResource>;

export const BelievedState = Type.Object({
  node_id: NodeId,
  baseline_operation_id: Nullable(OperationId),
  applied_at: Nullable(Timestamp),
  modules: Type.Array(OperationModule),
  resources: Type.Array(BelievedResource),
  latest_drift: Nullable(
    Type.Object({ drift_id: DriftId, checked_at: Timestamp, drifted: Type.Boolean(), drifted_count: Type.Integer({ minimum: 0 }) }),
  ),
});
export type BelievedState = Static<typeof BelievedState>;

export const DRIFT_ITEM_STATUSES = ['in_sync', 'drifted', 'error'] as const;
export const DriftItem = Type.Object({
  module: ModuleName,
  resource_id: Type.String(),
  type: ResourceTypeSchema,
  status: Type.Enum(DRIFT_ITEM_STATUSES),
  expected: Type.Record(Type.String(), Type.Unknown(), { description: 'Per drifted property: the value the baseline applied' }),
  actual: Type.Record(Type.String(), Type.Unknown(), { description: 'Per drifted property: the value on the machine now' }),
  diff: Nullable(ResourceDiff),
  message: Nullable(Type.String()),
});
export type DriftItem = Static<typeof DriftItem>;

export const DRIFT_STATUSES = ['running', 'done', 'failed'] as const;
export const DriftSummary = Type.Object({
  drift_id: DriftId,
  node_id: NodeId,
  baseline_operation_id: OperationId,
  trigger: OperationTrigger,
  actor: Type.String(),
  status: Type.Enum(DRIFT_STATUSES, { description: 'running while the agent checks; failed when the check could not finish (message says why)' }),
  drifted: Type.Boolean(),
  drifted_count: Type.Integer({ minimum: 0 }),
  checked_count: Type.Integer({ minimum: 0 }),
  message: Nullable(Type.String()),
  requested_at: Timestamp,
  checked_at: Nullable(Timestamp),
});
export type DriftSummary = Static<typeof DriftSummary>;

export const DriftRecord = Type.Object({ ...DriftSummary.properties, items: Type.Array(DriftItem, { description: 'One per resource of the baseline' }) });
export type DriftRecord = Static<typeof DriftRecord>;
