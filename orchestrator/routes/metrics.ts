import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AgentParams } from '../../common/schemas/agents.js';
import { MetricsHistory, MetricsLatest, MetricsQuery } from '../../common/schemas/metrics.js';
import type { Services } from '../context.js';
import { problemResponse } from '../http/access.js';
import { NotFound } from '../http/errors.js';

export const metricsRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { agents, metrics } = services;

  app.get(
    '/agents/:node_id/metrics',
    {
      config: { access: 'viewer' },
      schema: {
        tags: ['metrics'],
        summary: "An agent's metrics history",
        description:
          'Averages per `step` seconds between `since` (default: one hour before `until`) and `until` (default: now), ' +
          'oldest first; steps without samples have no point. The answer names the resolution it was read from: ' +
          '`raw` (kept 48 h) for steps under a minute, `1m` (kept 14 days) for steps under an hour, `1h` (kept a year) ' +
          'otherwise or for older windows. The step is raised to a whole number of the resolution\'s buckets and so ' +
          'that at most 2000 points come back; `since` in the answer is aligned down to a step boundary.',
        params: AgentParams,
        querystring: MetricsQuery,
        response: {
          200: MetricsHistory,
          400: problemResponse('Invalid query, or since is not before until'),
          404: problemResponse('The agent does not exist (code agent-not-found)'),
        },
      },
    },
    async (request) => {
      agents.require(request.params.node_id);
      return metrics.history(request.params.node_id, request.query);
    },
  );

  app.get(
    '/agents/:node_id/metrics/latest',
    {
      config: { access: 'viewer' },
      schema: {
        tags: ['metrics'],
        summary: "An agent's latest metrics sample",
        params: AgentParams,
        response: {
          200: MetricsLatest,
          404: problemResponse('The agent does not exist (agent-not-found) or has sent no metrics yet (no-metrics)'),
        },
      },
    },
    async (request) => {
      const nodeId = request.params.node_id;
      agents.require(nodeId);
      const latest = metrics.latest(nodeId);
      if (!latest) throw new NotFound(`agent ${nodeId} has sent no metrics yet`, 'no-metrics');
      return latest;
    },
  );
};
