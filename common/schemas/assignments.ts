// Assignments (a module set bound to a selector) and the batches their apply/plan creates.
import { Type, type Static } from 'typebox';
import { ModuleName } from './modules.js';
import { NodeId } from './agents.js';
import { Timestamp } from './shared.js';
import { BatchId, OperationId, OperationKind, OperationStatus, VarsMap } from './state.js';

export const ASSIGNMENT_NAME_PATTERN = '^[a-z0-9][a-z0-9._-]{0,62}$';
export const AssignmentName = Type.String({ pattern: ASSIGNMENT_NAME_PATTERN, description: 'Assignment name: 1-63 lower-case letters, digits, . _ -' });

export const Selector = Type.String({ minLength: 1, maxLength: 1024, description: 'Label selector over agent tags (Kubernetes syntax: role=web,env in (prod,stage),!legacy)' });

export const Assignment = Type.Object({
  name: AssignmentName,
  description: Type.String(),
  selector: Selector,
  modules: Type.Array(ModuleName, { description: 'Applied in this order' }),
  vars: VarsMap,
  only_in_maintenance: Type.Boolean({ description: 'Apply only to agents inside an open maintenance window (others get a skipped operation); plans are not restricted' }),
  created_at: Timestamp,
  created_by: Type.String(),
  updated_at: Timestamp,
  updated_by: Type.String(),
  matching_agents: Type.Integer({ minimum: 0, description: 'Accepted agents the selector matches now' }),
});
export type Assignment = Static<typeof Assignment>;

export const AssignmentCreate = Type.Object(
  {
    name: AssignmentName,
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    selector: Selector,
    modules: Type.Array(ModuleName, { minItems: 1, maxItems: 64, description: 'Existing module names, applied in this order' }),
    vars: Type.Optional(VarsMap),
    only_in_maintenance: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
);
export type AssignmentCreate = Static<typeof AssignmentCreate>;

export const AssignmentParams = Type.Object({ name: AssignmentName });

export const AssignmentRunRequest = Type.Object(
  {
    batch_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 10000, description: 'Rollout: run this many agents, wait for them to finish, then the next batch' })),
    stop_on_failure: Type.Optional(Type.Boolean({ description: 'Rollout: if an agent of a batch fails, the rest are cancelled (default false)' })),
  },
  { additionalProperties: false },
);
export type AssignmentRunRequest = Static<typeof AssignmentRunRequest>;

export const BatchOperation = Type.Object({
  operation_id: OperationId,
  node_id: NodeId,
  status: OperationStatus,
  message: Type.Union([Type.String(), Type.Null()]),
});
export type BatchOperation = Static<typeof BatchOperation>;

/** Agents whose operations ended with the same per-resource outcome, shown as one line. */
export const BatchGroup = Type.Object({
  label: Type.String({ description: 'e.g. "all unchanged", "changed: motd, nginx-conf", "failed: install-nginx"' }),
  status: OperationStatus,
  count: Type.Integer({ minimum: 1 }),
  node_ids: Type.Array(NodeId),
  changed: Type.Array(Type.String(), { description: 'Resource ids (module/id) changed or that would change' }),
  failed: Type.Array(Type.String(), { description: 'Resource ids (module/id) that failed or would fail' }),
});
export type BatchGroup = Static<typeof BatchGroup>;

export const BatchSummary = Type.Object({
  batch_id: BatchId,
  assignment: AssignmentName,
  kind: OperationKind,
  created_at: Timestamp,
  created_by: Type.String(),
  done: Type.Boolean({ description: 'Every operation has finished' }),
  total: Type.Integer({ minimum: 0 }),
  counts: Type.Record(Type.String(), Type.Integer({ minimum: 0 }), { description: 'Operations per status' }),
  agents_changed: Type.Integer({ minimum: 0, description: 'Agents with at least one changed (or would_change) resource' }),
  agents_failed: Type.Integer({ minimum: 0, description: 'Agents whose operation failed, was partial, or had a failing resource' }),
  headline: Type.String({ description: 'One line, e.g. "38 agents: 2 changed, 0 failed, 1 skipped"' }),
  groups: Type.Array(BatchGroup),
  operations: Type.Array(BatchOperation),
});
export type BatchSummary = Static<typeof BatchSummary>;

export const BatchParams = Type.Object({ batch_id: BatchId });
