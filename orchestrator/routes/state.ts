import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import {
  AgentOperationsQuery,
  BelievedState,
  NodeOperationParams,
  NodeParams,
  Operation,
  OperationOutput,
  OperationParams,
  OperationsQuery,
  OperationSummary,
  StateRunRequest,
  type OperationKind,
} from '../../common/schemas/state.js';
import { ListOf } from '../../common/schemas/shared.js';
import type { Services } from '../context.js';
import { problemResponse } from '../http/access.js';

/** Which modules and var names were asked for, never var values (they may be sensitive). */
function auditRequest(request: FastifyRequest): void {
  const body = (request.body ?? {}) as Partial<StateRunRequest>;
  const params = request.params as { node_id?: string };
  request.auditOverride = {
    target: params.node_id ?? null,
    details: {
      modules: Array.isArray(body.modules) ? body.modules.slice(0, 64) : [],
      vars: body.vars && typeof body.vars === 'object' ? Object.keys(body.vars).sort() : [],
      ...(typeof body.plan_operation_id === 'string' ? { plan_operation_id: body.plan_operation_id } : {}),
    },
  };
}

export const stateRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { operations } = services;

  const run = (kind: OperationKind) =>
    app.post(
      `/agents/:node_id/${kind}`,
      {
        config: { access: 'operator', audit: `state.${kind}` },
        preValidation: async (request) => auditRequest(request),
        schema: {
          tags: ['state'],
          summary: kind === 'apply' ? 'Apply modules to an agent' : 'Plan mode for an agent',
          description:
            (kind === 'apply'
              ? 'Converges the agent to the modules, in dependency order. With `plan_operation_id`, runs only if the plan still holds: same module revisions, vars, tags and secrets, and the agent re-planning now gets the same result (else 409 `plan_stale`, nothing applied). '
              : 'Reads the machine and reports, per resource, unchanged | would_change (with the diff) | would_fail; changes nothing. ') +
            'Answers 202 at once with the operation (status queued); it runs after the agent\'s earlier operations, one at a time, and its results appear on GET /state/operations/{operation_id}. ' +
            'An offline agent: 409 `agent_offline`. A template with no value for this agent (a missing tag): 409 `template_unresolved`.',
          params: NodeParams,
          body: StateRunRequest,
          response: {
            202: OperationSummary,
            404: problemResponse('No such agent, module or plan'),
            409: problemResponse('agent_offline, plan_stale, template_unresolved, agent-not-accepted'),
          },
        },
      },
      async (request, reply) => {
        const { modules, vars, plan_operation_id } = request.body;
        const op = await operations.start({
          nodeId: request.params.node_id,
          kind,
          modules,
          ...(vars !== undefined ? { vars } : {}),
          ...(plan_operation_id !== undefined ? { planOperationId: plan_operation_id } : {}),
          trigger: 'operator',
          actor: request.auth!.operator.operator_id,
        });
        request.auditOverride = { ...request.auditOverride!, details: { ...request.auditOverride!.details, operation_id: op.operation_id } };
        return reply.code(202).send(op);
      },
    );
  run('apply');
  run('plan');

  app.get(
    '/agents/:node_id/state',
    {
      config: { access: 'viewer' },
      schema: {
        tags: ['state'],
        summary: 'Believed machine state',
        description: "What the agent's last successful apply left: each resource as applied (secret values ********) and what the agent observed after converging, with the latest drift check.",
        params: NodeParams,
        response: { 200: BelievedState },
      },
    },
    async (request) => operations.believed(request.params.node_id),
  );

  app.get(
    '/agents/:node_id/state/operations',
    {
      config: { access: 'viewer' },
      schema: {
        tags: ['state'],
        summary: 'State operations of one agent, most recent first',
        params: NodeParams,
        querystring: AgentOperationsQuery,
        response: { 200: ListOf(OperationSummary) },
      },
    },
    async (request) => {
      services.agents.require(request.params.node_id);
      return operations.list({ ...request.query, node_id: request.params.node_id });
    },
  );

  app.get(
    '/agents/:node_id/state/operations/:operation_id/output',
    {
      config: { access: 'viewer' },
      schema: {
        tags: ['state'],
        summary: 'Captured script output for a state operation',
        description: 'stdout, stderr and exit code of every resource that ran a command (scripts, notify re-runs), capped at 1 MiB per stream; secret values are ********.',
        params: NodeOperationParams,
        response: { 200: OperationOutput },
      },
    },
    async (request) => operations.output(request.params.node_id, request.params.operation_id),
  );

  app.get(
    '/state/operations',
    {
      config: { access: 'viewer' },
      schema: {
        tags: ['state'],
        summary: 'State operations across all agents, most recent first',
        description: 'Filters: node_id, kind, status, assignment, batch_id, since. Keyset pages with `cursor`.',
        querystring: OperationsQuery,
        response: { 200: ListOf(OperationSummary) },
      },
    },
    async (request) => operations.list(request.query),
  );

  app.get(
    '/state/operations/:operation_id',
    {
      config: { access: 'viewer' },
      schema: {
        tags: ['state'],
        summary: 'One operation, including per-resource results',
        params: OperationParams,
        response: { 200: Operation },
      },
    },
    async (request) => operations.get(request.params.operation_id),
  );
};
