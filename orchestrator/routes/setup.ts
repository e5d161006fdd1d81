import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { SetupRequest } from '../../common/schemas/auth.js';
import { Operator } from '../../common/schemas/operators.js';
import type { Services } from '../context.js';
import { problemResponse } from '../http/access.js';

export const setupRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  app.post(
    '/setup',
    {
      config: { access: 'public', audit: 'setup.first_admin', rateLimit: { max: services.config.authRateLimit, timeWindow: 60_000 } },
      schema: {
        tags: ['auth'],
        summary: 'Create the first admin with the one-time token from the setup link',
        body: SetupRequest,
        response: {
          201: Operator,
          403: problemResponse('The setup token is invalid or expired'),
          409: problemResponse('The first admin exists already'),
        },
      },
    },
    async (request, reply) => {
      request.auditOverride = { target: 'admin', details: {} };
      const admin = services.auth.completeSetup(request.body.token, request.body.public_key, request.body.name);
      request.auditOverride = { actor: admin.operator_id, target: admin.operator_id, details: { keys: admin.public_keys.length } };
      return reply.code(201).send(admin);
    },
  );
};
