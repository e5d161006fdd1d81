import rateLimit from '@fastify/rate-limit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { SecureServerOptions } from 'node:http2';
import { API_PREFIX } from '../../common/version.js';
import type { Services } from '../context.js';
import { agentRoutes } from '../routes/agents.js';
import { auditRoutes } from '../routes/audit.js';
import { discoveryRoutes } from '../routes/discovery.js';
import { metricsRoutes } from '../routes/metrics.js';
import { moduleRoutes } from '../routes/modules.js';
import { stateRoutes } from '../routes/state.js';
import { driftRoutes } from '../routes/drift.js';
import { assignmentRoutes } from '../routes/assignments.js';
import { tagRoutes } from '../routes/tags.js';
import { terminalRoutes } from '../routes/terminals.js';
import { secretRoutes } from '../routes/secrets.js';
import { authRoutes } from '../routes/auth.js';
import { operatorRoutes } from '../routes/operators.js';
import { setupRoutes } from '../routes/setup.js';
import { statusRoutes } from '../routes/status.js';
import { notificationRoutes } from '../routes/notifications.js';
import { channelRoutes } from '../routes/channels.js';
import { maintenanceRoutes } from '../routes/maintenance.js';
import { eventStreamRoutes } from '../routes/events.js';
import { registerAccessControl } from './access.js';
import { registerAuditHook } from './audit-hook.js';
import { TooManyRequests } from './errors.js';
import './fastify-augment.js';
import { registerOpenApi } from './openapi.js';
import { registerProblemHandlers } from './problem-handler.js';
import { registerUi } from './ui.js';
import { validatorCompiler } from './validators.js';

const SECRET_QUERY = /([?&](?:token|ticket)=)[^&]*/gi;

function loggerOptions(level: string): FastifyServerOptions['logger'] {
  return {
    level,
    // Tokens travel in headers and, for streams, in query strings; neither may reach a log.
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], censor: '[redacted]' },
    serializers: {
      req: (req: { method: string; url: string; ip?: string; id?: string }) => ({
        method: req.method,
        url: req.url.replace(SECRET_QUERY, '$1[redacted]'),
        ip: req.ip,
        id: req.id,
      }),
    },
  };
}

export interface BuildAppOptions {
  https?: { key: string; cert: string };
  logger?: boolean;
}

/** Builds the whole HTTP application without listening; launchers and tests decide what to do with it. */
export async function buildApp(services: Services, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const { config } = services;
  const app = Fastify({
    ...(options.https ? { https: options.https as SecureServerOptions } : {}),
    logger: options.logger === false ? false : loggerOptions(config.logLevel),
    // Fastify's own per-request lines are replaced by the one onResponse line below.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.bodyLimit,
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    trustProxy: false,
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.addHook('onResponse', async (request, reply) => {
    const status = reply.statusCode;
    const line = { reqId: request.id, method: request.method, url: request.url.replace(SECRET_QUERY, '$1[redacted]'), status, ms: Math.round(reply.elapsedTime) };
    if (status >= 500) request.log.error(line, 'request failed');
    else if (status >= 400) request.log.info(line, 'request refused');
    else request.log.debug(line, 'request');
  });

  app.setValidatorCompiler(validatorCompiler);
  registerProblemHandlers(app);
  // The API takes JSON only; without this, Fastify's built-in text/plain parser turns a
  // wrong content type into a misleading "body: must be object" 400 instead of a 415.
  app.removeContentTypeParser('text/plain');
  await registerOpenApi(app);
  await app.register(rateLimit, {
    global: false,
    errorResponseBuilder: (_request, context) => {
      const retry = Math.ceil(context.ttl / 1000);
      return new TooManyRequests(`at most ${context.max} requests per minute to this endpoint; try again in ${retry} s`, retry);
    },
  });
  // The agent link shares the API's port (DESIGN.md); the websocket plugin must precede routes,
  // and the access hook too: its onRequest hook marks upgrade requests, and its onResponse
  // hook then destroys the socket of one the access hook refused (otherwise that socket
  // lingers and keeps close() waiting).
  await services.hub.register(app);
  registerAccessControl(app, services.auth, (sessionId, ticket) => {
    const operatorId = services.terminals.redeemTicket(sessionId, ticket);
    const operator = operatorId === undefined ? undefined : services.operators.find(operatorId);
    return operator && { operator, tokenHash: 'ticket', keyFingerprint: '', expiresAt: services.terminals.now() };
  });
  registerAuditHook(app, services.audit);

  await app.register(
    async (api) => {
      await api.register(statusRoutes, { services });
      await api.register(setupRoutes, { services });
      await api.register(authRoutes, { services });
      await api.register(operatorRoutes, { services });
      await api.register(auditRoutes, { services });
      await api.register(agentRoutes, { services });
      await api.register(tagRoutes, { services });
      await api.register(metricsRoutes, { services });
      await api.register(discoveryRoutes, { services });
      await api.register(terminalRoutes, { services });
      await api.register(moduleRoutes, { services });
      await api.register(secretRoutes, { services });
      await api.register(stateRoutes, { services });
      await api.register(notificationRoutes, { services });
      await api.register(eventStreamRoutes, { services });
      await api.register(channelRoutes, { services });
      await api.register(maintenanceRoutes, { services });
      await api.register(driftRoutes, { services });
      await api.register(assignmentRoutes, { services });
      api.get(
        '/openapi.json',
        { config: { access: 'public' }, schema: { hide: true } },
        async () => app.swagger(),
      );
    },
    { prefix: API_PREFIX },
  );
  await registerUi(app, config.uiDir);
  return app;
}
