import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { DiscoverRequest, DiscoverResponse } from '../../common/schemas/discovery.js';
import type { Services } from '../context.js';

export const discoveryRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  app.post(
    '/discover',
    {
      config: { access: 'operator', audit: 'agent.discover' },
      schema: {
        tags: ['agents'],
        summary: 'Trigger a UDP discovery broadcast',
        description:
          'Sends one datagram to the broadcast address of every IPv4 interface (and to `targets`) on the discovery port, waits `wait_ms` (default 1500, max 10000) and returns the agents that answered. Agents with no orchestrator configured join this one and appear as pending.',
        body: { ...DiscoverRequest, default: {} } as typeof DiscoverRequest,
        response: { 200: DiscoverResponse },
      },
    },
    async (request) => {
      const waitMs = request.body?.wait_ms ?? 1500;
      const result = await services.discovery.discover(waitMs, request.body?.targets ?? []);
      request.auditOverride = { target: null, details: { sent_to: result.sent_to, answered: result.items.map((i) => i.node_id) } };
      return { ...result, wait_ms: waitMs };
    },
  );
};
