import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CreateOperatorRequest, Operator, OperatorParams } from '../../common/schemas/operators.js';
import { ListOf, ListQuery } from '../../common/schemas/shared.js';
import type { Services } from '../context.js';
import { problemResponse } from '../http/access.js';

export const operatorRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { operators } = services;

  app.get(
    '/operators',
    {
      config: { access: 'viewer' },
      schema: { tags: ['operators'], summary: 'List operators', querystring: ListQuery, response: { 200: ListOf(Operator) } },
    },
    async (request) => operators.list(request.query.limit ?? 100, request.query.cursor),
  );

  app.post(
    '/operators',
    {
      config: { access: 'admin', audit: 'operator.create' },
      schema: {
        tags: ['operators'],
        summary: 'Add an operator',
        body: CreateOperatorRequest,
        response: { 201: Operator, 409: problemResponse('The operator id or one of the keys exists already') },
      },
    },
    async (request, reply) => {
      request.auditOverride = { target: request.body.operator_id };
      const created = operators.create(request.body);
      request.auditOverride = { target: created.operator_id, details: { role: created.role, keys: created.public_keys.length } };
      return reply.code(201).header('location', `/api/v1/operators/${created.operator_id}`).send(created);
    },
  );

  app.get(
    '/operators/:operator_id',
    {
      config: { access: 'viewer' },
      schema: { tags: ['operators'], summary: 'Get one operator', params: OperatorParams, response: { 200: Operator } },
    },
    async (request) => operators.get(request.params.operator_id),
  );

  app.delete(
    '/operators/:operator_id',
    {
      config: { access: 'admin', audit: 'operator.remove' },
      schema: {
        tags: ['operators'],
        summary: 'Remove an operator (ends their sessions at once; the last admin cannot be removed)',
        params: OperatorParams,
        response: { 204: { type: 'null', description: 'Removed' }, 409: problemResponse('The operator is the last admin') },
      },
    },
    async (request, reply) => {
      const removed = operators.remove(request.params.operator_id);
      request.auditOverride = { target: removed.operator_id, details: { role: removed.role } };
      return reply.code(204).send(null);
    },
  );
};
