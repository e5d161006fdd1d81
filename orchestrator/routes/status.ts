import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { StatusResponse } from '../../common/schemas/status.js';
import { API_VERSION, PROTOCOL_VERSION } from '../../common/version.js';
import type { Services } from '../context.js';

export const statusRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  app.get(
    '/status',
    {
      config: { access: 'public' },
      schema: { tags: ['status'], summary: 'Return protocol version and health status', response: { 200: StatusResponse } },
    },
    async () => {
      let database: 'ok' | 'error' = 'ok';
      try {
        services.db.prepare('SELECT 1').get();
      } catch {
        database = 'error';
      }
      return {
        status: database === 'ok' ? ('ok' as const) : ('degraded' as const),
        protocol_version: PROTOCOL_VERSION,
        api_version: API_VERSION,
        uptime_s: Math.floor((Date.now() - services.startedAt) / 1000),
        tls_fingerprint: services.tlsFingerprint,
        setup_required: services.operators.count() === 0,
        checks: { database, agents_connected: services.hub.connectedCount(), agents_total: services.agents.count() },
      };
    },
  );
};
