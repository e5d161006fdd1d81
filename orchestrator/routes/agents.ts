import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Agent, AgentListQuery, AgentParams, ApprovalRequest, AttributesResponse } from '../../common/schemas/agents.js';
import { ListOf } from '../../common/schemas/shared.js';
import type { Services } from '../context.js';
import { problemResponse } from '../http/access.js';

export const agentRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { agents } = services;

  app.get(
    '/agents',
    {
      config: { access: 'viewer' },
      schema: {
        tags: ['agents'],
        summary: 'List agents from the persistent store',
        description: 'Filters combine with AND: approval `status`, `online`, and a label `selector` over tags. Ordered by node_id.',
        querystring: AgentListQuery,
        response: { 200: ListOf(Agent) },
      },
    },
    async (request) => agents.list(request.query),
  );

  // Not in the spec's table; the agent page reads one record instead of walking the list.
  app.get(
    '/agents/:node_id',
    {
      config: { access: 'viewer' },
      schema: { tags: ['agents'], summary: 'Get one agent', params: AgentParams, response: { 200: Agent } },
    },
    async (request) => agents.get(request.params.node_id),
  );

  app.post(
    '/agents/:node_id',
    {
      config: { access: 'operator', audit: 'agent.status' },
      schema: {
        tags: ['agents'],
        summary: "Change an agent's approval status",
        description: 'pending -> accepted | rejected; accepted -> rejected (its link closes at once); rejected -> accepted.',
        params: AgentParams,
        body: ApprovalRequest,
        response: { 200: Agent, 409: problemResponse('The transition is not allowed from the current status') },
      },
    },
    async (request) => {
      const before = services.agents.require(request.params.node_id).status;
      request.auditOverride = { target: request.params.node_id, details: { from: before, to: request.body.status } };
      return agents.changeStatus(request.params.node_id, request.body.status, request.auth!.operator.operator_id);
    },
  );

  app.delete(
    '/agents/:node_id',
    {
      config: { access: 'operator', audit: 'agent.delete' },
      schema: {
        tags: ['agents'],
        summary: "Remove a rejected agent's record",
        description: 'Only rejected agents; the agent shows up as pending again if it reconnects.',
        params: AgentParams,
        response: { 204: { type: 'null', description: 'Deleted' }, 409: problemResponse('The agent is not rejected') },
      },
    },
    async (request, reply) => {
      const removed = agents.remove(request.params.node_id);
      request.auditOverride = { target: removed.node_id, details: { key_fingerprint: removed.key_fingerprint } };
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/agents/:node_id/attributes',
    {
      config: { access: 'viewer' },
      schema: { tags: ['agents'], summary: 'Agent attribute map', params: AgentParams, response: { 200: AttributesResponse } },
    },
    async (request) => agents.attributes(request.params.node_id),
  );
};
