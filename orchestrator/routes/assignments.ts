import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Assignment, AssignmentCreate, AssignmentParams, AssignmentRunRequest, BatchParams, BatchSummary } from '../../common/schemas/assignments.js';
import { ListOf, ListQuery } from '../../common/schemas/shared.js';
import type { OperationKind } from '../../common/schemas/state.js';
import type { Services } from '../context.js';
import { problemResponse } from '../http/access.js';

export const assignmentRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { assignments } = services;

  app.get(
    '/assignments',
    {
      config: { access: 'viewer' },
      schema: { tags: ['assignments'], summary: 'List all assignments', description: 'Ordered by name, each with how many accepted agents its selector matches now.', querystring: ListQuery, response: { 200: ListOf(Assignment) } },
    },
    async (request) => assignments.list(request.query),
  );

  app.post(
    '/assignments',
    {
      config: { access: 'operator', audit: 'assignment.create' },
      schema: {
        tags: ['assignments'],
        summary: 'Create an assignment',
        description: 'Modules must exist; the selector is checked (400 `invalid-selector` naming the position); vars must be declared by the modules. 409 `assignment-exists`.',
        body: AssignmentCreate,
        response: { 201: Assignment, 409: problemResponse('An assignment of that name exists') },
      },
    },
    async (request, reply) => {
      const created = assignments.create(request.body, request.auth!.operator.operator_id);
      request.auditOverride = { target: created.name, details: { selector: created.selector, modules: created.modules, vars: Object.keys(created.vars).sort(), only_in_maintenance: created.only_in_maintenance } };
      return reply.code(201).send(created);
    },
  );

  app.get(
    '/assignments/:name',
    { config: { access: 'viewer' }, schema: { tags: ['assignments'], summary: 'Get one assignment', params: AssignmentParams, response: { 200: Assignment } } },
    async (request) => assignments.get(request.params.name),
  );

  app.delete(
    '/assignments/:name',
    {
      config: { access: 'operator', audit: 'assignment.delete' },
      schema: { tags: ['assignments'], summary: 'Delete an assignment', description: 'Operations it created stay in the history.', params: AssignmentParams, response: { 204: { type: 'null', description: 'Deleted' } } },
    },
    async (request, reply) => {
      const removed = assignments.remove(request.params.name);
      request.auditOverride = { target: removed.name, details: { selector: removed.selector, modules: removed.modules } };
      return reply.code(204).send(null);
    },
  );

  const run = (kind: OperationKind) =>
    app.post(
      `/assignments/:name/${kind}`,
      {
        config: { access: 'operator', audit: `assignment.${kind}` },
        schema: {
          tags: ['assignments'],
          summary: kind === 'apply' ? 'Apply an assignment to every agent its selector currently matches' : 'Plan an assignment against every agent its selector currently matches',
          description:
            'Creates one operation per accepted agent the selector matches at the time of the call and answers 202 at once with the batch: its id, every operation id, and the fleet summary so far (poll GET /state/batches/{batch_id}). ' +
            'Offline agents get a skipped operation with the reason. Operations run at most `apply_concurrency` (setting) at a time; `batch_size` rolls out in waves, and `stop_on_failure` cancels the remaining waves after a wave with a failure.',
          params: AssignmentParams,
          body: AssignmentRunRequest,
          response: { 202: BatchSummary, 409: problemResponse('A module of the assignment no longer exists') },
        },
      },
      async (request, reply) => {
        const summary = await assignments.run(request.params.name, kind, request.body ?? {}, request.auth!.operator.operator_id);
        request.auditOverride = { target: request.params.name, details: { batch_id: summary.batch_id, agents: summary.total, counts: summary.counts } };
        return reply.code(202).send(summary);
      },
    );
  run('apply');
  run('plan');

  app.get(
    '/state/batches/:batch_id',
    {
      config: { access: 'viewer' },
      schema: {
        tags: ['assignments'],
        summary: 'Fleet summary of an assignment apply or plan',
        description: 'Counts per status, a one-line headline, and agents with identical results grouped ("36 agents: all unchanged").',
        params: BatchParams,
        response: { 200: BatchSummary },
      },
    },
    async (request) => assignments.batch(request.params.batch_id),
  );
};
