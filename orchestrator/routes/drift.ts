import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ListOf, ListQuery } from '../../common/schemas/shared.js';
import { DriftParams, DriftRecord, DriftSummary, NodeParams } from '../../common/schemas/state.js';
import type { Services } from '../context.js';
import { problemResponse } from '../http/access.js';

export const driftRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { drift } = services;

  app.post(
    '/agents/:node_id/drift',
    {
      config: { access: 'operator', audit: 'drift.check' },
      schema: {
        tags: ['drift'],
        summary: "Drift check against the agent's last successful apply snapshot",
        description:
          'The agent re-reads every resource of its last successful apply and changes nothing. Answers 202 with the record (status running); ' +
          'poll GET /drift/{drift_id}. 409 `no-baseline` before any successful apply, 409 `agent_offline` when the agent is not connected.',
        params: NodeParams,
        response: { 202: DriftSummary, 409: problemResponse('no-baseline, agent_offline, agent-not-accepted') },
      },
    },
    async (request, reply) => {
      const record = drift.check(request.params.node_id, 'operator', request.auth!.operator.operator_id);
      request.auditOverride = { target: request.params.node_id, details: { drift_id: record.drift_id, baseline_operation_id: record.baseline_operation_id } };
      return reply.code(202).send(record);
    },
  );

  app.get(
    '/agents/:node_id/drift',
    {
      config: { access: 'viewer' },
      schema: {
        tags: ['drift'],
        summary: 'List drift records for an agent',
        description: 'Most recent first, without items (GET /drift/{drift_id} has them).',
        params: NodeParams,
        querystring: ListQuery,
        response: { 200: ListOf(DriftSummary) },
      },
    },
    async (request) => drift.list(request.params.node_id, request.query),
  );

  app.get(
    '/agents/:node_id/drift/latest',
    {
      config: { access: 'viewer' },
      schema: {
        tags: ['drift'],
        summary: 'Most recent drift record',
        description: 'The newest finished check, with its items. 404 `no-drift-record` when the agent was never checked.',
        params: NodeParams,
        response: { 200: DriftRecord },
      },
    },
    async (request) => drift.latest(request.params.node_id),
  );

  app.get(
    '/drift/:drift_id',
    {
      config: { access: 'viewer' },
      schema: {
        tags: ['drift'],
        summary: 'Fetch one drift record',
        params: DriftParams,
        response: { 200: DriftRecord },
      },
    },
    async (request) => drift.get(request.params.drift_id),
  );
};
