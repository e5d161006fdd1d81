import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { Problem } from '../../common/schemas/shared.js';
import { API_LICENSE, API_VERSION } from '../../common/version.js';

/** The OpenAPI document is generated from the route schemas; nothing here lists paths. */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  app.addSchema(Problem);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Corral management API',
        version: API_VERSION,
        description: 'Operate a small fleet: operators, agents, terminals, desired state, drift, notifications and audit.',
        license: { name: API_LICENSE, identifier: API_LICENSE },
      },
      servers: [{ url: '/' }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'Token from POST /api/v1/auth/verify' },
        },
      },
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`),
    },
  });
}
