import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { roleAllows } from '../../common/auth.js';
import { API_PREFIX } from '../../common/version.js';
import type { Authenticated, AuthService } from '../services/auth.js';
import { Forbidden, Unauthorized } from './errors.js';

const PROBLEM_REF = { $ref: 'Problem#' };

function problemResponse(description: string) {
  return { description, content: { 'application/problem+json': { schema: PROBLEM_REF } } };
}

/**
 * Every API route declares `config.access`; this hook enforces it in one place
 * (no per-handler checks) and documents it, with the standard error answers,
 * in the route's OpenAPI entry.
 */
/** Turns a stream ticket for a session into the operator it was issued to (terminals). */
export type TicketRedeemer = (sessionId: string, ticket: string) => Authenticated | undefined;

export function registerAccessControl(app: FastifyInstance, auth: AuthService, redeemTicket?: TicketRedeemer): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    if (!route.url.startsWith(API_PREFIX)) return;
    const access = route.config?.access;
    if (!access) throw new Error(`route ${String(route.method)} ${route.url} does not declare config.access`);
    const schema = (route.schema ??= {}) as Record<string, unknown>;
    schema.security = access === 'public' ? [] : [{ bearerAuth: [] }];
    if (access !== 'public') {
      const note = `Requires role: ${access}${access === 'viewer' ? ' (any signed-in operator)' : access === 'admin' ? ' (Admin only)' : ' or admin'}.`;
      schema.description = schema.description ? `${String(schema.description)}\n\n${note}` : note;
    }
    const responses = (schema.response ??= {}) as Record<string, unknown>;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const standard: Record<string, string> = {
      400: 'Invalid request (problem+json names the field)',
      404: 'Not found',
      429: 'Rate limited',
      500: 'Internal error',
    };
    if (access !== 'public') {
      standard[401] = 'No valid session token';
      standard[403] = 'The operator role is not allowed to do this';
    }
    if (methods.some((m) => m === 'POST' || m === 'PUT' || m === 'PATCH')) {
      standard[413] = 'Request body too large';
      standard[415] = 'Unsupported content type';
    }
    for (const [status, description] of Object.entries(standard)) responses[status] ??= problemResponse(description);
  });

  app.addHook('onRequest', async (request: FastifyRequest) => {
    const access = request.routeOptions.config?.access;
    if (!access) return;
    // A route that takes tickets (the terminal stream) accepts ?ticket= for its :session_id
    // in place of a bearer token: browsers cannot set headers on a WebSocket.
    const ticket = request.routeOptions.config?.ticket ? (request.query as Record<string, unknown> | undefined)?.ticket : undefined;
    if (typeof ticket === 'string' && ticket !== '') {
      const sessionId = String((request.params as Record<string, unknown> | undefined)?.session_id ?? '');
      const session = redeemTicket?.(sessionId, ticket);
      if (!session) throw new Unauthorized('the ticket is unknown, already used, expired or for another session; open the terminal again', 'ticket-invalid');
      request.auth = session;
    }
    const header = request.headers.authorization;
    if (header && !request.auth) {
      const token = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
      const session = token ? auth.authenticate(token) : undefined;
      // A stale token must not stand between anyone and the public routes (status, sign-in).
      if (!session && access !== 'public') {
        throw new Unauthorized(
          token ? 'the session token is invalid, expired or revoked; sign in again' : 'the Authorization header must be "Bearer <token>"',
          'token-invalid',
        );
      }
      request.auth = session;
    }
    if (access === 'public') return;
    if (!request.auth) throw new Unauthorized();
    if (!roleAllows(request.auth.operator.role, access)) {
      throw new Forbidden(
        `this needs the ${access} role${access === 'operator' ? ' (or admin)' : ''}; ${request.auth.operator.operator_id} is ${request.auth.operator.role}`,
        'role-required',
      );
    }
  });
}

export { problemResponse };
